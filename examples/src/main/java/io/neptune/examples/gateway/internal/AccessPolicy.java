package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Decides, before a request is routed, whether the gateway serves it and who sent it
 * (docs/SECURITY.md, "Gateway"):
 *
 * <ol>
 *   <li>its {@code Host} must name this gateway, else 421: the bind address, {@code localhost},
 *       a loopback address or the address the connection reached, each with the gateway's port,
 *       or a host configured with {@link io.neptune.examples.gateway.HttpGateway.Builder#allowedHost}.
 *       A page whose name was rebound to the gateway's address (DNS rebinding) sends its own name;
 *   <li>a request that is not {@code GET} or {@code HEAD} and carries {@code Origin} must come from
 *       such a host, else 403;
 *   <li>{@code Authorization: Bearer <token>} names the caller: the admin, or a user bound to a
 *       service class; a token the gateway does not know is 403, another scheme 401. Tokens are
 *       compared by their SHA-256 digests in constant time;
 *   <li>{@code POST /admin/...} (and any other non-read method there) needs the admin: 401 with
 *       {@code WWW-Authenticate: Bearer} without credentials, 403 for a user;
 *   <li>{@code /api/...} and {@code GET /admin/...} need a token unless anonymous access is on (by
 *       default on a gateway bound to loopback only). The web UI's files are always served.
 * </ol>
 *
 * <p>Thread-safety: immutable.
 */
public final class AccessPolicy {
    /** The realm named in {@code WWW-Authenticate}. */
    static final String REALM = "neptune-gateway";
    /** The shortest token accepted: 16 characters (a random one has 128 bits or more). */
    public static final int MIN_TOKEN_LENGTH = 16;

    private static final String BEARER = "bearer ";

    private final String bindName;
    /** Whether {@code bindName} names this gateway (not so for a wildcard such as {@code 0.0.0.0}). */
    private final boolean bindNameAllowed;
    private final List<Credential> credentials;
    private final boolean hasAdmin;
    private final List<HostPort> allowedHosts;
    private final boolean anonymousAccess;
    private final int defaultPort;

    /** A token's digest and the caller it names. */
    private record Credential(byte[] digest, Caller caller) {}

    /** A {@code Host} or an origin's authority: a lower-case name or address, and a port (-1: the gateway's). */
    record HostPort(String host, int port) {
        @Override
        public String toString() {
            return port < 0 ? host : host + ":" + port;
        }
    }

    /** What {@link #admit} decided. */
    public sealed interface Admission {
        /** Served, on behalf of {@code caller}. */
        record Admitted(Caller caller) implements Admission {}

        /** Refused with {@code response}. */
        record Refused(GatewayResponse response) implements Admission {}
    }

    private AccessPolicy(String bindName, List<Credential> credentials, boolean hasAdmin, List<HostPort> allowedHosts,
            boolean anonymousAccess, int defaultPort) {
        this.bindName = bindName;
        InetAddress bound = literal(bindName);
        this.bindNameAllowed = bound == null || !bound.isAnyLocalAddress();
        this.credentials = credentials;
        this.hasAdmin = hasAdmin;
        this.allowedHosts = allowedHosts;
        this.anonymousAccess = anonymousAccess;
        this.defaultPort = defaultPort;
    }

    /**
     * The policy of a gateway bound to {@code bindAddress}.
     *
     * @param adminToken the admin's token, or null: then nobody can take admin actions
     * @param userTokens tokens of users, each with the service class its requests run in
     * @param allowedHosts more {@code Host} values to serve, {@code name} (on the gateway's port) or
     *     {@code name:port}
     * @param anonymousAccess whether callers without a token may use {@code /api} and {@code GET /admin}
     * @param tls whether the gateway serves HTTPS (a {@code Host} without a port then means 443)
     */
    public static AccessPolicy of(String bindAddress, @Nullable String adminToken, Map<String, String> userTokens,
            List<String> allowedHosts, boolean anonymousAccess, boolean tls) {
        requireNonNull(bindAddress, "bindAddress");
        List<Credential> credentials = new ArrayList<>();
        if (adminToken != null) {
            credentials.add(new Credential(digest(checkToken("adminToken", adminToken)), new Caller("admin", true, null)));
        }
        for (Map.Entry<String, String> user : new LinkedHashMap<>(userTokens).entrySet()) {
            if (user.getKey().equals(adminToken)) {
                throw new IllegalArgumentException("userToken: the admin token (expected: a token of its own)");
            }
            credentials.add(new Credential(digest(checkToken("userToken", user.getKey())),
                    new Caller("user of class " + user.getValue(), false, user.getValue())));
        }
        List<HostPort> hosts = new ArrayList<>();
        for (String host : allowedHosts) {
            HostPort parsed = parse(host, -1);
            if (parsed == null) {
                throw new IllegalArgumentException("allowedHost: '" + host + "' (expected: a host name or address,"
                        + " with an optional :port; IPv6 in brackets)");
            }
            hosts.add(parsed);
        }
        return new AccessPolicy(bindAddress.toLowerCase(Locale.ROOT), List.copyOf(credentials), adminToken != null,
                List.copyOf(hosts), anonymousAccess, tls ? 443 : 80);
    }

    /** Returns {@code token} if it may be a token; else throws saying why (never quoting the token). */
    public static String checkToken(String name, String token) {
        requireNonNull(token, name);
        if (token.length() < MIN_TOKEN_LENGTH) {
            throw new IllegalArgumentException(name + ": " + token.length() + " characters (expected: >= "
                    + MIN_TOKEN_LENGTH + ")");
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                throw new IllegalArgumentException(name + ": a character at index " + i
                        + " (expected: printable ASCII without spaces)");
            }
        }
        return token;
    }

    /** Whether callers without a token may use {@code /api} and {@code GET /admin}. */
    public boolean anonymousAccess() {
        return anonymousAccess;
    }

    /**
     * Admits or refuses a request that reached the gateway at {@code local}.
     *
     * @param headers the request's headers by name (case-insensitive), null when absent
     */
    public Admission admit(String method, List<String> path, Function<String, @Nullable String> headers,
            InetSocketAddress local) {
        String host = headers.apply("Host");
        HostPort hostPort = host == null ? null : parse(host, defaultPort);
        if (hostPort == null || !allows(hostPort, local)) {
            return refused(421, "Host: " + (host == null ? "missing" : "'" + host + "'") + " (expected: "
                    + expectedHosts(local) + ", or one configured with allowedHost)");
        }
        boolean readOnly = method.equals("GET") || method.equals("HEAD");
        String origin = headers.apply("Origin");
        if (!readOnly && origin != null && !allowsOrigin(origin, local)) {
            return refused(403, "Origin: '" + origin + "' (expected: a page of this gateway, " + expectedHosts(local)
                    + ")");
        }
        String authorization = headers.apply("Authorization");
        Caller caller = Caller.ANONYMOUS;
        if (authorization != null) {
            if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
                return unauthorized("Authorization: scheme '" + authorization.split(" ", 2)[0]
                        + "' (expected: Bearer <token>)");
            }
            Caller named = caller(authorization.substring(BEARER.length()).trim());
            if (named == null) {
                return refused(403, "Authorization: the bearer token is not one of this gateway's (expected: the"
                        + " admin token or a user token)");
            }
            caller = named;
        }
        if (path.isEmpty() || !(path.get(0).equals("api") || path.get(0).equals("admin"))) {
            return new Admission.Admitted(caller); // the web UI's files
        }
        if (path.get(0).equals("admin") && !readOnly && !caller.admin()) {
            if (!caller.isAnonymous()) {
                return refused(403, "caller: " + caller + " (expected: the admin, for " + method + " /admin/...)");
            }
            return unauthorized(hasAdmin ? "Authorization: missing (expected: Bearer <admin token>, for " + method
                    + " /admin/...)" : "admin actions are off: this gateway has no admin token (expected: one"
                    + " configured with adminToken)");
        }
        if (caller.isAnonymous() && !anonymousAccess) {
            return unauthorized("Authorization: missing (expected: Bearer <token>: this gateway serves /api and"
                    + " /admin only to callers with a token)");
        }
        return new Admission.Admitted(caller);
    }

    /** The caller whose token is {@code token}, or null; every credential is compared, in constant time. */
    private @Nullable Caller caller(String token) {
        byte[] presented = digest(token);
        Caller found = null;
        for (Credential credential : credentials) {
            if (MessageDigest.isEqual(presented, credential.digest()) && found == null) {
                found = credential.caller();
            }
        }
        return found;
    }

    private boolean allows(HostPort host, InetSocketAddress local) {
        for (HostPort allowed : allowedHosts) {
            if (allowed.host().equals(host.host())
                    && (allowed.port() == host.port() || allowed.port() < 0 && host.port() == local.getPort())) {
                return true;
            }
        }
        if (host.port() != local.getPort()) {
            return false;
        }
        if (host.host().equals("localhost") || host.host().equals(bindName) && bindNameAllowed) {
            return true;
        }
        InetAddress literal = literal(host.host());
        return literal != null && (literal.isLoopbackAddress() || literal.equals(local.getAddress()));
    }

    private boolean allowsOrigin(String origin, InetSocketAddress local) {
        int separator = origin.indexOf("://");
        if (separator < 0) {
            return false; // "null" (a sandboxed or file: page) and anything malformed
        }
        String scheme = origin.substring(0, separator).toLowerCase(Locale.ROOT);
        int port = scheme.equals("https") ? 443 : scheme.equals("http") ? 80 : -1;
        HostPort host = port < 0 ? null : parse(origin.substring(separator + 3), port);
        return host != null && allows(host, local);
    }

    private String expectedHosts(InetSocketAddress local) {
        int port = local.getPort();
        List<String> names = new ArrayList<>(List.of("localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port));
        if (!names.contains(bindName + ":" + port) && bindNameAllowed && bindName.indexOf(':') < 0) {
            names.add(bindName + ":" + port);
        }
        return String.join(", ", names);
    }

    /** An IP address literal ({@code 10.0.0.1}, {@code [::1]}) without a DNS lookup, or null for a name. */
    private static @Nullable InetAddress literal(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (!NetUtil.isValidIpV4Address(bare) && !NetUtil.isValidIpV6Address(bare)) {
            return null;
        }
        return NetUtil.createInetAddressFromIpAddressString(bare);
    }

    /**
     * Parses {@code name}, {@code name:port}, {@code [v6]} or {@code [v6]:port}, lower-casing the name;
     * a missing port is {@code defaultPort}. Null if malformed.
     */
    static @Nullable HostPort parse(String authority, int defaultPort) {
        String value = authority.trim().toLowerCase(Locale.ROOT);
        int end = value.startsWith("[") ? value.indexOf(']') + 1 : value.indexOf(':') < 0 ? value.length()
                : value.lastIndexOf(':');
        if (end <= 0) {
            return null;
        }
        String host = value.substring(0, end);
        String rest = value.substring(end);
        if (host.indexOf('/') >= 0 || host.indexOf('@') >= 0 || !host.startsWith("[") && host.indexOf(':') >= 0) {
            return null;
        }
        if (rest.isEmpty()) {
            return new HostPort(host, defaultPort);
        }
        if (!rest.startsWith(":") || rest.length() == 1 || rest.length() > 6) {
            return null;
        }
        try {
            int port = Integer.parseInt(rest.substring(1));
            return port >= 1 && port <= 65535 ? new HostPort(host, port) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Admission refused(int status, String message) {
        return new Admission.Refused(GatewayResponse.error(status, message));
    }

    private static Admission unauthorized(String message) {
        return new Admission.Refused(GatewayResponse.error(401, message)
                .withHeader("WWW-Authenticate", "Bearer realm=\"" + REALM + "\""));
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "AccessPolicy[adminToken=" + (hasAdmin ? "set" : "none") + ", userTokens="
                + (credentials.size() - (hasAdmin ? 1 : 0)) + ", allowedHosts=" + allowedHosts + ", anonymousAccess="
                + anonymousAccess + "]";
    }
}
