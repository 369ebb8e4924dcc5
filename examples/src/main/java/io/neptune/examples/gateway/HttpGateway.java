package io.neptune.examples.gateway;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.Checks;
import io.neptune.examples.gateway.internal.AccessPolicy;
import io.neptune.examples.gateway.internal.GatewayServer;
import io.neptune.examples.gateway.internal.GatewaySettings;
import io.neptune.server.NeptuneNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP/1.1 server that serves the discussion, auction, cache, search, BLAST and multi-tier front
 * services as JSON, a web UI and a cluster dashboard, calling the cluster through the client
 * module of a {@link NeptuneNode} (normally one that hosts nothing). Each browser session (cookie
 * {@code neptune-session} or header {@code X-Neptune-Session}) gets its own
 * {@link io.neptune.client.NeptuneHandle}, so a user never sees a partition go back in time.
 *
 * <pre>{@code
 * try (NeptuneNode node = NeptuneNode.builder(NodeConfig.builder().node("gateway").build()).start();
 *         HttpGateway gateway = HttpGateway.builder(node).port(8080).start()) {
 *     System.out.println("open http://127.0.0.1:" + gateway.port() + "/");
 * }
 * }</pre>
 *
 * <p>Requests never block an event loop: each route calls the cluster asynchronously and answers
 * when the call completes. A {@code POST} to {@code /api/...} must be {@code application/json},
 * so that other web sites cannot make a browser send it. Routes, status codes and connection
 * limits: {@code docs/OPERATIONS.md}.
 *
 * <p>Access (docs/SECURITY.md, "Gateway"): a request whose {@code Host} does not name the gateway
 * is refused with 421 (DNS rebinding), and a write whose {@code Origin} is another site's with 403.
 * Admin actions ({@code POST /admin/...}) need {@code Authorization: Bearer <admin token>}
 * ({@link Builder#adminToken}): 401 without it, 403 with another token. A caller without a token
 * uses {@code /api} and the read-only admin routes only if {@link Builder#anonymousAccess} is on
 * (by default, when the gateway is bound to loopback) and always runs in the default service class;
 * the service class of the admin comes from the {@link Builder#classifier}, that of a user from
 * its token ({@link Builder#userToken}). With {@link Builder#security} it serves HTTPS.
 *
 * <p>Thread-safety: thread-safe. {@link #close()} is idempotent and does not close the node.
 */
public final class HttpGateway implements AutoCloseable {
    /** Default for {@link Builder#bindAddress(String)}. */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** Default for {@link Builder#port(int)}. */
    public static final int DEFAULT_PORT = 8080;
    /** Default for {@link Builder#callTimeout(Duration)}: after it a route answers 504. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(5);
    /** Default for {@link Builder#maxBodyBytes(int)}: larger request bodies are answered with 413. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /**
     * Default for {@link Builder#maxSessions(int)}: beyond it the least recently used session is
     * forgotten. A session counts once its id came back in a second request; ids seen only once
     * wait in a separate area of at most 1,024, so clients that never send their id back cannot
     * push real users out.
     */
    public static final int DEFAULT_MAX_SESSIONS = 10_000;
    /**
     * Default for {@link Builder#idleTimeout(Duration)}: a connection silent this long with no
     * request outstanding is closed.
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /**
     * Default for {@link Builder#requestTimeout(Duration)}: a request whose first bytes arrived and
     * that is not whole this much later is answered 408 and its connection closed.
     */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** Default for {@link Builder#ioThreads(int)}. */
    public static final int DEFAULT_IO_THREADS = 2;

    private final GatewayServer server;

    private HttpGateway(GatewayServer server) {
        this.server = server;
    }

    /** Returns a builder for a gateway calling the cluster through {@code node}. */
    public static Builder builder(NeptuneNode node) {
        return new Builder(node);
    }

    /** The address the server is bound to. */
    public InetSocketAddress address() {
        return server.address();
    }

    /** The bound port (useful when the builder asked for port 0). */
    public int port() {
        return server.address().getPort();
    }

    /** Stops accepting connections and closes the open ones; idempotent. The node stays up. */
    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return "HttpGateway[" + server.address() + "]";
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private final NeptuneNode node;
        private String bindAddress = DEFAULT_BIND_ADDRESS;
        private int port = DEFAULT_PORT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int maxSessions = DEFAULT_MAX_SESSIONS;
        private int ioThreads = DEFAULT_IO_THREADS;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private @Nullable DemoControl demoControl;
        private RequestClassifier classifier = RequestClassifier.byHeader();
        private @Nullable String blastExample;
        private @Nullable String adminToken;
        private final Map<String, String> userTokens = new LinkedHashMap<>();
        private final List<String> allowedHosts = new ArrayList<>();
        private @Nullable Boolean anonymousAccess;
        private SecurityConfig security = SecurityConfig.disabled();

        private Builder(NeptuneNode node) {
            this.node = requireNonNull(node, "node");
        }

        /** Sets the address to listen on; default {@value HttpGateway#DEFAULT_BIND_ADDRESS}. */
        public Builder bindAddress(String bindAddress) {
            this.bindAddress = requireNonNull(bindAddress, "bindAddress");
            return this;
        }

        /** Sets the TCP port; 0 picks a free one (see {@link HttpGateway#port()}). */
        public Builder port(int port) {
            Checks.port("port", port);
            this.port = port;
            return this;
        }

        /** Sets the deadline of each call into the cluster; default {@link HttpGateway#DEFAULT_CALL_TIMEOUT}. */
        public Builder callTimeout(Duration callTimeout) {
            Checks.positive("callTimeout", callTimeout);
            this.callTimeout = callTimeout;
            return this;
        }

        /** Sets the largest request body; default {@value HttpGateway#DEFAULT_MAX_BODY_BYTES} bytes. */
        public Builder maxBodyBytes(int maxBodyBytes) {
            Checks.atLeast("maxBodyBytes", maxBodyBytes, 1024);
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /** Sets how many confirmed sessions are remembered; default {@value HttpGateway#DEFAULT_MAX_SESSIONS}. */
        public Builder maxSessions(int maxSessions) {
            Checks.atLeast("maxSessions", maxSessions, 1);
            this.maxSessions = maxSessions;
            return this;
        }

        /** Sets the number of Netty event loop threads; default {@value HttpGateway#DEFAULT_IO_THREADS}. */
        public Builder ioThreads(int ioThreads) {
            Checks.atLeast("ioThreads", ioThreads, 1);
            this.ioThreads = ioThreads;
            return this;
        }

        /** Sets how long an idle connection stays open; default {@link HttpGateway#DEFAULT_IDLE_TIMEOUT}. */
        public Builder idleTimeout(Duration idleTimeout) {
            Checks.positive("idleTimeout", idleTimeout);
            this.idleTimeout = idleTimeout;
            return this;
        }

        /**
         * Sets how long a request may take to arrive whole from its first byte, however the rest
         * trickles in (an idle timeout cannot catch a client that sends a byte now and then); then it
         * is answered 408 and the connection closed. Default {@link HttpGateway#DEFAULT_REQUEST_TIMEOUT}.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            Checks.positive("requestTimeout", requestTimeout);
            this.requestTimeout = requestTimeout;
            return this;
        }

        /**
         * Sets how the admin's requests are put into service classes; default
         * {@link RequestClassifier#byHeader()} (the class named in {@value RequestClassifier#CLASS_HEADER}).
         * Anonymous callers always run in the default class, users in their token's class.
         */
        public Builder classifier(RequestClassifier classifier) {
            this.classifier = requireNonNull(classifier, "classifier");
            return this;
        }

        /**
         * Sets a nucleotide query the BLAST page offers as an example (one that finds hits in the
         * database the {@code blast} service searches); none by default.
         */
        public Builder blastExample(String sequence) {
            this.blastExample = io.neptune.examples.blast.BlastQuery.parse(sequence).bases();
            return this;
        }

        /** Enables demo mode: the dashboard can kill and restart the nodes {@code demoControl} manages. */
        public Builder demoControl(DemoControl demoControl) {
            this.demoControl = requireNonNull(demoControl, "demoControl");
            return this;
        }

        /**
         * Sets the admin's token: a request with {@code Authorization: Bearer <token>} may take admin
         * actions ({@code POST /admin/...}: kill and start nodes in demo mode) and name its service
         * class in {@value RequestClassifier#CLASS_HEADER}. At least
         * 16 printable ASCII characters without spaces; none by default, and then
         * nobody may take admin actions.
         */
        public Builder adminToken(String token) {
            this.adminToken = AccessPolicy.checkToken("adminToken", token);
            return this;
        }

        /**
         * Sets the admin's token to the content of {@code file} (surrounding white space removed), so
         * that it appears neither on a command line nor in the environment; see {@link #adminToken}.
         *
         * @throws io.neptune.core.ConfigException if the file cannot be read
         */
        public Builder adminTokenFile(Path file) {
            requireNonNull(file, "file");
            String token;
            try {
                token = Files.readString(file, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new ConfigException("adminTokenFile", "'" + file + "' cannot be read ("
                        + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
            }
            return adminToken(token);
        }

        /**
         * Adds a user's token: a request with {@code Authorization: Bearer <token>} runs in
         * {@code serviceClass} whatever its headers say, and may use {@code /api} and the read-only
         * admin routes even when anonymous access is off, but takes no admin action (403).
         */
        public Builder userToken(String token, String serviceClass) {
            AccessPolicy.checkToken("userToken", token);
            userTokens.put(token, ServiceClass.checkName(serviceClass));
            return this;
        }

        /**
         * Adds a {@code Host} the gateway answers to besides its own addresses ({@code localhost}, the
         * loopback addresses, the bind address and the address a connection reached, each on the
         * gateway's port): {@code name} on the gateway's port, or {@code name:port} (the name a proxy in
         * front of the gateway is reached by). Requests naming any other host are refused with 421.
         */
        public Builder allowedHost(String host) {
            allowedHosts.add(requireNonNull(host, "host"));
            return this;
        }

        /**
         * Sets whether callers without a token may use {@code /api/...} and the read-only admin routes
         * ({@code GET /admin/...}); the web UI's files are always served and admin actions always need
         * the admin token. Default: on when the bind address is a loopback address, else off.
         */
        public Builder anonymousAccess(boolean anonymousAccess) {
            this.anonymousAccess = anonymousAccess;
            return this;
        }

        /**
         * Serves HTTPS with the certificate and key of {@code security} when its TLS is
         * {@link SecurityConfig.TlsMode#REQUIRED}; browsers are not asked for a certificate. Default
         * {@link SecurityConfig#disabled()}: plain HTTP.
         */
        public Builder security(SecurityConfig security) {
            requireNonNull(security, "security");
            if (security.tls() == SecurityConfig.TlsMode.PERMISSIVE) {
                throw new IllegalArgumentException("security.tls: permissive (expected: required or disabled; the"
                        + " gateway serves either HTTPS or HTTP on its port)");
            }
            this.security = security.isEnabled()
                    ? security.toBuilder().clientAuth(SecurityConfig.ClientAuth.NONE).build() : security;
            return this;
        }

        /**
         * Binds the server and starts serving.
         *
         * @throws io.neptune.core.NeptuneException if the address cannot be bound
         */
        public HttpGateway start() {
            boolean anonymous = anonymousAccess != null ? anonymousAccess : isLoopback(bindAddress);
            AccessPolicy access = AccessPolicy.of(bindAddress, adminToken, userTokens, allowedHosts, anonymous,
                    security.isEnabled());
            return new HttpGateway(GatewayServer.start(node, new GatewaySettings(bindAddress, port, callTimeout,
                    maxBodyBytes, maxSessions, ioThreads, idleTimeout, requestTimeout, classifier, blastExample, access,
                    security), demoControl));
        }

        private static boolean isLoopback(String address) {
            try {
                return InetAddress.getByName(address).isLoopbackAddress();
            } catch (UnknownHostException e) {
                return false; // binding fails and says so
            }
        }
    }
}
