package io.neptune.examples.gateway;

import static io.neptune.examples.gateway.GatewayCluster.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.examples.gateway.Http.Reply;
import io.neptune.server.internal.security.CertificateAuthority;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tries the gateway's doors over real sockets (docs/SECURITY.md, "Gateway"): admin actions without
 * a token, with a wrong one and with a user's; a foreign {@code Host} (DNS rebinding) and a foreign
 * {@code Origin}; a service class named by a caller who may not choose it; reads without a token on
 * loopback and on a gateway closed to anonymous callers; HTTPS.
 */
class GatewayAccessIT {
    /** A user token bound to a class the nodes do not declare: a call that runs in it fails with 400 naming it. */
    private static final String USER_TOKEN = "test-user-token-" + UUID.randomUUID();

    private static final RecordingDemoControl demo = new RecordingDemoControl(List.of("node-0", "node-1"));
    private static GatewayCluster cluster;
    private static Http http;

    @BeforeAll
    @Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
    static void startCluster() {
        cluster = GatewayCluster.start(1, b -> b.demoControl(demo).userToken(USER_TOKEN, "platinum"));
        http = new Http(cluster.baseUrl(), Optional.of("access-it-" + UUID.randomUUID()));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void forgetActions() {
        demo.actions.clear();
    }

    @Test
    void adminActionsNeedTheAdminToken() {
        Reply anonymous = http.send(http.request("/admin/nodes/node-0/kill").header("X-Neptune-Admin", "1")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(401);
        assertThat(anonymous.header("WWW-Authenticate")).hasValue("Bearer realm=\"neptune-gateway\"");
        assertThat(kill("Bearer wrong-token-" + UUID.randomUUID()).status()).isEqualTo(403);
        assertThat(kill("Bearer " + GatewayCluster.ADMIN_TOKEN + "x").status()).isEqualTo(403);
        assertThat(kill("Basic YWRtaW46YWRtaW4=").status()).isEqualTo(401);
        Reply user = kill("Bearer " + USER_TOKEN);
        assertThat(user.status()).as(user.toString()).isEqualTo(403);
        assertThat(user.error()).contains("expected: the admin");
        assertThat(demo.actions).as("nothing reached the demo control").isEmpty();

        Reply admin = kill("bearer " + GatewayCluster.ADMIN_TOKEN);
        assertThat(admin.status()).as(admin.toString()).isEqualTo(200);
        assertThat(demo.actions).containsExactly("kill node-0");
    }

    private static Reply kill(String authorization) {
        return http.send(http.request("/admin/nodes/node-0/kill").header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    @Test
    void aForeignHostIsRefusedWith421() {
        int port = cluster.gateway().port();
        try (RawHttp raw = new RawHttp(port)) {
            // a page of evil.example whose name now resolves to 127.0.0.1 sends its own name as Host
            RawHttp.Response read = raw.write("GET /admin/cluster HTTP/1.1\r\nHost: evil.example:" + port
                    + "\r\n\r\n").read();
            assertThat(read.status()).as(read.body()).isEqualTo(421);
            assertThat(read.body()).contains("evil.example");
            RawHttp.Response kill = raw.write("POST /admin/nodes/node-0/kill HTTP/1.1\r\nHost: evil.example:" + port
                    + "\r\nAuthorization: Bearer " + GatewayCluster.ADMIN_TOKEN + "\r\nContent-Length: 0\r\n\r\n").read();
            assertThat(kill.status()).isEqualTo(421);
            assertThat(raw.write("GET /admin/cluster HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n").read().status())
                    .as("another port").isEqualTo(421);
            assertThat(raw.write("GET /admin/cluster HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status())
                    .as("no port: 80").isEqualTo(421);
            for (String host : new String[] {"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port,
                    "[::1]:" + port}) {
                assertThat(raw.write("GET /admin/cluster HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read().status())
                        .as(host).isEqualTo(200);
            }
        }
        try (RawHttp raw = new RawHttp(port)) {
            assertThat(raw.write("GET /admin/cluster HTTP/1.0\r\n\r\n").read().status()).as("no Host").isEqualTo(421);
        }
        assertThat(demo.actions).isEmpty();
    }

    @Test
    void aWriteFromAForeignOriginIsRefused() {
        String path = "/api/discussion/" + unique("origin") + "/messages";
        String body = "{\"author\":\"a\",\"subject\":\"s\",\"body\":\"b\"}";
        Reply foreign = http.send(http.request(path).header("Content-Type", "application/json")
                .header("Origin", "http://evil.example").POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(foreign.status()).as(foreign.toString()).isEqualTo(403);
        assertThat(foreign.error()).contains("Origin");
        Reply opaque = http.send(http.request(path).header("Content-Type", "application/json")
                .header("Origin", "null").POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(opaque.status()).isEqualTo(403);
        assertThat(http.get(path.replace("/messages", "/headers")).json().get("headers")).isEmpty();
        Reply own = http.send(http.request(path).header("Content-Type", "application/json")
                .header("Origin", cluster.baseUrl()).POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(own.status()).as(own.toString()).isEqualTo(201);
    }

    @Test
    void readsAndTheApiStayOpenOnLoopback() {
        assertThat(http.get("/admin/cluster").status()).isEqualTo(200);
        assertThat(http.get("/admin/metrics").status()).isEqualTo(200);
        assertThat(http.get("/").status()).isEqualTo(200);
        String key = unique("open");
        assertThat(http.put("/api/cache/" + key, new byte[] {1}).status()).isEqualTo(204);
        assertThat(http.get("/api/cache/" + key).status()).isEqualTo(200);
    }

    @Test
    void theServiceClassComesFromTheCallerNotFromItsHeader() {
        String key = unique("class");
        // anonymous: the header is ignored, the call runs in the default class (the nodes know no 'platinum')
        Reply anonymous = http.send(http.request("/api/cache/" + key).header("X-Neptune-Class", "platinum")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'a'})));
        assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(204);
        // a user: its token's class, whatever the header says
        Reply user = http.send(http.request("/api/cache/" + key).header("Authorization", "Bearer " + USER_TOKEN)
                .header("X-Neptune-Class", "default").PUT(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'u'})));
        assertThat(user.status()).as(user.toString()).isEqualTo(400);
        assertThat(user.error()).contains("unknown service class 'platinum'");
        // the admin: the header
        Reply admin = http.send(http.asAdmin("/api/cache/" + key).header("X-Neptune-Class", "platinum").GET());
        assertThat(admin.status()).as(admin.toString()).isEqualTo(400);
        assertThat(admin.error()).contains("unknown service class 'platinum'");
        assertThat(http.get("/api/cache/" + key).body()).containsExactly('a');
    }

    @Test
    void withoutAnonymousAccessTheApiAndReadsNeedAToken() {
        try (HttpGateway closed = HttpGateway.builder(cluster.gatewayNode()).port(0).anonymousAccess(false)
                .adminToken(GatewayCluster.ADMIN_TOKEN).start()) {
            Http client = new Http("http://127.0.0.1:" + closed.port(), Optional.empty());
            Reply read = client.get("/api/cache/" + unique("closed"));
            assertThat(read.status()).as(read.toString()).isEqualTo(401);
            assertThat(read.header("WWW-Authenticate")).isPresent();
            assertThat(client.get("/admin/cluster").status()).isEqualTo(401);
            assertThat(client.get("/app.js").status()).as("the page itself, which then sends the token").isEqualTo(200);
            assertThat(client.send(client.asAdmin("/admin/cluster").GET()).status()).isEqualTo(200);
        }
    }

    @Test
    void servesHttpsWithTheSecurityConfig(@TempDir Path directory) throws Exception {
        CertificateAuthority authority = CertificateAuthority.create(directory, "gateway-test", Duration.ofDays(1));
        CertificateAuthority.Issued issued = authority.issue(new Principal(Principal.Role.NODE, "gateway"), directory,
                Duration.ofDays(1));
        SecurityConfig security = SecurityConfig.builder().tls(SecurityConfig.TlsMode.REQUIRED)
                .identity(issued.certificate(), issued.key()).trust(authority.certificate()).build();
        try (HttpGateway https = HttpGateway.builder(cluster.gatewayNode()).port(0).security(security).start()) {
            String status = httpsStatusLine(authority.certificate(), https.port(), "GET /admin/metrics HTTP/1.1\r\n"
                    + "Host: 127.0.0.1:" + https.port() + "\r\nConnection: close\r\n\r\n");
            assertThat(status).isEqualTo("HTTP/1.1 200 OK");
            Http plain = new Http("http://127.0.0.1:" + https.port(), Optional.empty());
            assertThatThrownBy(() -> plain.get("/admin/metrics")).isInstanceOf(UncheckedIOException.class);
        }
    }

    /** The status line of {@code request} sent over TLS trusting {@code ca} (no host name check: the certificate names a principal). */
    private static String httpsStatusLine(Path ca, int port, String request) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            int i = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + i++, certificate);
            }
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            byte[] answer = socket.getInputStream().readAllBytes();
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            return text.substring(0, text.indexOf("\r\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
