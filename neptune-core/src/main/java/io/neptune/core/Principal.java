package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who is calling: the identity a certificate's subject alternative name carries, as a URI
 * {@code neptune://<role>/<name>}, such as {@code neptune://node/node-1},
 * {@code neptune://operator/alice} or {@code neptune://client/shop-frontend}. docs/SECURITY.md
 * says what each role may do.
 *
 * @param role what the holder may do in the cluster
 * @param name the holder's name: a node's id for {@link Role#NODE}, else a free label
 */
public record Principal(Role role, String name) {

    /** The URI scheme of an identity. */
    public static final String SCHEME = "neptune";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    /** What a principal may do. */
    public enum Role {
        /** A cluster member: may replicate, vote and hand over partitions; calls services like a client. */
        NODE,
        /** A person or tool operating the cluster: may drain nodes and move partitions; calls services. */
        OPERATOR,
        /** An application: may call services, nothing else. */
        CLIENT
    }

    /** Validates the fields. */
    public Principal {
        requireNonNull(role, "role");
        requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name: '" + name + "' (expected: 1 to 128 of letters, digits, '.', '_', '-')");
        }
    }

    /** A node's principal: role {@link Role#NODE}, named after its id. */
    public static Principal node(NodeId node) {
        return new Principal(Role.NODE, node.value());
    }

    /** The principal a URI names, if it is a well-formed {@code neptune://<role>/<name>}. */
    public static Optional<Principal> fromUri(String uri) {
        requireNonNull(uri, "uri");
        URI parsed;
        try {
            parsed = new URI(uri);
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
        if (!SCHEME.equalsIgnoreCase(parsed.getScheme()) || parsed.getHost() == null || parsed.getPath() == null
                || parsed.getPath().length() < 2 || parsed.getQuery() != null || parsed.getFragment() != null) {
            return Optional.empty();
        }
        Role role;
        try {
            role = Role.valueOf(parsed.getHost().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        String name = parsed.getPath().substring(1);
        return NAME.matcher(name).matches() ? Optional.of(new Principal(role, name)) : Optional.empty();
    }

    /** Whether this principal is node {@code node}. */
    public boolean isNode(NodeId node) {
        return role == Role.NODE && name.equals(node.value());
    }

    /** The URI a certificate carries for this principal: {@code neptune://node/node-1}. */
    public String uri() {
        return SCHEME + "://" + role.name().toLowerCase(Locale.ROOT) + "/" + name;
    }

    @Override
    public String toString() {
        return uri();
    }
}
