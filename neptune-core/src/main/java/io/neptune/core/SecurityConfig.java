package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Transport security of a node or a client: whether connections are TLS, the PEM files of the
 * holder's certificate, key and trusted authorities, and whether a peer must present a
 * certificate. The identity and role of a peer come from its certificate ({@link Principal});
 * docs/SECURITY.md has the threat model and the production set-up. Optionally also a
 * {@link ClusterSecret} that authenticates load-poll replies. Immutable; create with
 * {@link #builder()} or {@link #disabled()}. {@link #toString()} never shows the secret.
 *
 * @param tls whether connections are TLS
 * @param certificate PEM certificate chain presented to peers (its first certificate carries the
 *     holder's {@link Principal} as a URI subject alternative name); required unless TLS is disabled
 * @param key PEM PKCS#8 private key of {@code certificate}; required unless TLS is disabled
 * @param trust PEM certificates of the authorities whose certificates this holder accepts; required
 *     unless TLS is disabled
 * @param clientAuth whether a node asks callers for a certificate
 * @param handshakeTimeout how long a TLS handshake may take before the connection is closed
 * @param insecure lets a node bound to an address other than loopback start with TLS disabled
 * @param provider which TLS implementation runs the request port's connections
 * @param clusterSecret the secret all nodes and clients of the cluster share, or {@code null} for
 *     none; with one, a node signs its load-poll replies and a client takes only signed ones
 *     (independent of {@code tls})
 */
public record SecurityConfig(
        TlsMode tls,
        @Nullable Path certificate,
        @Nullable Path key,
        @Nullable Path trust,
        ClientAuth clientAuth,
        Duration handshakeTimeout,
        boolean insecure,
        TlsProvider provider,
        @Nullable ClusterSecret clusterSecret) {

    /** Whether connections are TLS. */
    public enum TlsMode {
        /** Plaintext only; every peer is trusted (a trusted network, or loopback). */
        DISABLED,
        /**
         * Accepts TLS and plaintext, and sends TLS to peers that accept it: the step between
         * {@link #DISABLED} and {@link #REQUIRED} of a rolling restart. Plaintext peers are trusted.
         */
        PERMISSIVE,
        /** TLS only: a plaintext connection is closed before anything it sends is read. */
        REQUIRED
    }

    /** Whether a node asks the peers that connect to it for a certificate. */
    public enum ClientAuth {
        /** A peer without a trusted certificate cannot connect (the default). */
        REQUIRE,
        /** A peer may connect without a certificate; it is then an anonymous client. */
        OPTIONAL,
        /** Peers are not asked; every TLS peer is an anonymous client. */
        NONE
    }

    /** Which TLS implementation runs the request port's connections (membership always uses the JDK's). */
    public enum TlsProvider {
        /** OpenSSL (BoringSSL, from {@code netty-tcnative-boringssl-static}) where it loads, else the JDK's: the default. */
        AUTO,
        /** The JDK's TLS ({@code SSLEngine}). */
        JDK,
        /** OpenSSL; a node or client refuses to start where it does not load. */
        OPENSSL
    }

    /** Default for {@link #handshakeTimeout()}. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    private static final SecurityConfig DISABLED = builder().build();

    /** Validates the fields. */
    public SecurityConfig {
        requireNonNull(tls, "tls");
        requireNonNull(clientAuth, "clientAuth");
        requireNonNull(handshakeTimeout, "handshakeTimeout");
        requireNonNull(provider, "provider");
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout: " + handshakeTimeout + " (expected: > 0)");
        }
        if (tls != TlsMode.DISABLED) {
            required("certificate", certificate, tls);
            required("key", key, tls);
            required("trust", trust, tls);
        }
    }

    private static void required(String name, @Nullable Path file, TlsMode tls) {
        if (file == null) {
            throw new IllegalArgumentException(name + ": missing (expected: a PEM file when tls is "
                    + tls.name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
    }

    /** No TLS: the trusted-network set-up, for loopback. */
    public static SecurityConfig disabled() {
        return DISABLED;
    }

    /** Whether connections may or must be TLS. */
    public boolean isEnabled() {
        return tls != TlsMode.DISABLED;
    }

    /** Returns a builder initialized from this configuration. */
    public Builder toBuilder() {
        Builder builder = new Builder().tls(tls).clientAuth(clientAuth).handshakeTimeout(handshakeTimeout)
                .insecure(insecure).provider(provider);
        builder.clusterSecret = clusterSecret;
        builder.certificate = certificate;
        builder.key = key;
        builder.trust = trust;
        return builder;
    }

    /** Returns a builder with TLS disabled and every other default set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private TlsMode tls = TlsMode.DISABLED;
        private @Nullable Path certificate;
        private @Nullable Path key;
        private @Nullable Path trust;
        private ClientAuth clientAuth = ClientAuth.REQUIRE;
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private boolean insecure;
        private TlsProvider provider = TlsProvider.AUTO;
        private @Nullable ClusterSecret clusterSecret;

        private Builder() {}

        /** Sets {@link SecurityConfig#tls()}. */
        public Builder tls(TlsMode tls) {
            this.tls = tls;
            return this;
        }

        /** Sets the holder's certificate chain and private key, both PEM files. */
        public Builder identity(Path certificate, Path key) {
            this.certificate = requireNonNull(certificate, "certificate");
            this.key = requireNonNull(key, "key");
            return this;
        }

        /** Sets {@link SecurityConfig#trust()}. */
        public Builder trust(Path trust) {
            this.trust = requireNonNull(trust, "trust");
            return this;
        }

        /** Sets {@link SecurityConfig#clientAuth()}. */
        public Builder clientAuth(ClientAuth clientAuth) {
            this.clientAuth = clientAuth;
            return this;
        }

        /** Sets {@link SecurityConfig#handshakeTimeout()}. */
        public Builder handshakeTimeout(Duration handshakeTimeout) {
            this.handshakeTimeout = handshakeTimeout;
            return this;
        }

        /** Sets {@link SecurityConfig#insecure()}. */
        public Builder insecure(boolean insecure) {
            this.insecure = insecure;
            return this;
        }

        /** Sets {@link SecurityConfig#provider()}; {@link TlsProvider#AUTO} by default. */
        public Builder provider(TlsProvider provider) {
            this.provider = provider;
            return this;
        }

        /**
         * Sets {@link SecurityConfig#clusterSecret()}, from {@link ClusterSecret#fromFile} or
         * {@link ClusterSecret#fromEnvironment()}; none by default.
         */
        public Builder clusterSecret(ClusterSecret clusterSecret) {
            this.clusterSecret = requireNonNull(clusterSecret, "clusterSecret");
            return this;
        }

        /** Validates and builds the configuration. */
        public SecurityConfig build() {
            return new SecurityConfig(tls, certificate, key, trust, clientAuth, handshakeTimeout, insecure, provider,
                    clusterSecret);
        }
    }
}
