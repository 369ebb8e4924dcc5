package io.neptune.server.internal.security;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.Principal.Role;
import java.util.Optional;

/**
 * Who sent a request, as far as this node can tell: a certificate's {@link Principal}, a TLS peer
 * without a certificate, or a peer this node trusts without asking (plaintext where TLS is not
 * required, and the node's own in-process calls). What each may do: docs/SECURITY.md.
 */
public sealed interface Caller {

    /** A peer on a plaintext connection that the node's TLS mode lets in, or the node itself: may do anything. */
    Caller TRUSTED = new Trusted();

    /** A TLS peer that presented no certificate: an application, and nothing more. */
    Caller ANONYMOUS = new Anonymous();

    /** The caller a certificate's {@code principal} makes. */
    static Caller of(Principal principal) {
        return new Authenticated(principal);
    }

    /** Whether the caller may act in {@code role}. */
    boolean hasRole(Role role);

    /** Whether the caller may speak for node {@code node} (send a peer message naming it as sender). */
    boolean mayActAs(NodeId node);

    /** The caller's certificate identity, if it has one. */
    Optional<Principal> principal();

    /** See {@link #TRUSTED}. */
    record Trusted() implements Caller {
        @Override
        public boolean hasRole(Role role) {
            return true;
        }

        @Override
        public boolean mayActAs(NodeId node) {
            return true;
        }

        @Override
        public Optional<Principal> principal() {
            return Optional.empty();
        }

        @Override
        public String toString() {
            return "a trusted peer (no TLS)";
        }
    }

    /** See {@link #ANONYMOUS}. */
    record Anonymous() implements Caller {
        @Override
        public boolean hasRole(Role role) {
            return role == Role.CLIENT;
        }

        @Override
        public boolean mayActAs(NodeId node) {
            return false;
        }

        @Override
        public Optional<Principal> principal() {
            return Optional.empty();
        }

        @Override
        public String toString() {
            return "an anonymous TLS peer";
        }
    }

    /** A peer whose certificate names {@code identity}. */
    record Authenticated(Principal identity) implements Caller {
        /** Validates the field. */
        public Authenticated {
            requireNonNull(identity, "identity");
        }

        @Override
        public boolean hasRole(Role role) {
            return identity.role() == role;
        }

        @Override
        public boolean mayActAs(NodeId node) {
            return identity.isNode(node);
        }

        @Override
        public Optional<Principal> principal() {
            return Optional.of(identity);
        }

        @Override
        public String toString() {
            return identity.uri();
        }
    }
}
