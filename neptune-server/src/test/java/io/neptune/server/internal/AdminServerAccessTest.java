package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Gauge;
import io.neptune.core.ConfigException;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.internal.security.AdminToken;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may use the admin port and how many at once, over real sockets: the bearer token on
 * {@code /metrics} and every route but {@code /health/*}, and the places kept for health probes.
 */
class AdminServerAccessTest {
    private static final int SOCKET_TIMEOUT_MILLIS = 10_000;
    private static final String TOKEN = "s3cret-admin-token";

    @TempDir
    Path directory;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final NodeMetrics metrics = NodeMetrics.own(NodeId.of("n1"));
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        metrics.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void metricsAsksForTheTokenAndHealthDoesNot() throws Exception {
        Path tokenFile = Files.writeString(directory.resolve("admin-token"), "  " + TOKEN + "\n");
        AdminServer server = start(AdminServer.Settings.of(Duration.ofSeconds(5))
                .withToken(AdminToken.read(NodeId.of("n1"), tokenFile)), () -> new Health(true, List.of()));

        Answer none = get(server, "/metrics", null);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.headers()).containsEntry("www-authenticate", "Bearer realm=\"neptune-admin\"");
        assertThat(get(server, "/metrics", "Bearer wrong").status()).isEqualTo(403);
        assertThat(get(server, "/metrics", "Basic " + TOKEN).status()).as("not a bearer token").isEqualTo(401);
        assertThat(get(server, "/metrics", "Bearer " + TOKEN).status()).isEqualTo(200);
        assertThat(get(server, "/metrics", "bearer  " + TOKEN + " ").status()).as("scheme in any case").isEqualTo(200);
        assertThat(get(server, "/elsewhere", null).status()).as("no route is named to a caller without the token")
                .isEqualTo(401);
        assertThat(get(server, "/elsewhere", "Bearer " + TOKEN).status()).isEqualTo(404);
        for (String health : List.of("/health/live", "/health/ready", "/health")) {
            assertThat(get(server, health, null).status()).as(health + " stays open for probes").isEqualTo(200);
        }
        assertThat(server.unauthenticated()).isEqualTo(3);
        assertThat(server.forbidden()).isEqualTo(1);
    }

    @Test
    void aChangedTokenFileCountsWithoutARestart() throws Exception {
        Path tokenFile = Files.writeString(directory.resolve("admin-token"), TOKEN);
        AdminToken token = AdminToken.read(NodeId.of("n1"), tokenFile);
        assertThat(token.toString()).contains(tokenFile.toString()).doesNotContain(TOKEN);
        AdminServer server = start(AdminServer.Settings.of(Duration.ofSeconds(5)).withToken(token),
                () -> new Health(true, List.of()));

        Files.writeString(tokenFile, "rotated\n");
        Files.setLastModifiedTime(tokenFile, FileTime.from(Instant.now().plusSeconds(5)));
        await().atMost(Duration.ofSeconds(10)).until(() -> get(server, "/metrics", "Bearer rotated").status() == 200);
        assertThat(get(server, "/metrics", "Bearer " + TOKEN).status()).isEqualTo(403);

        Files.writeString(tokenFile, " \n"); // half-written: the token read before stays
        Files.setLastModifiedTime(tokenFile, FileTime.from(Instant.now().plusSeconds(10)));
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
                .until(() -> get(server, "/metrics", "Bearer rotated").status() == 200);
    }

    @Test
    void aTokenFileWithoutATokenStopsTheStartNamingTheKey() throws IOException {
        Path empty = Files.writeString(directory.resolve("empty"), "\n");
        assertThatThrownBy(() -> AdminToken.read(NodeId.of("n1"), empty)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("admin-token-file: '" + empty + "' holds no token");
        assertThatThrownBy(() -> AdminToken.read(NodeId.of("n1"), directory.resolve("missing")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cannot be read");
    }

    /** With every /metrics place rendering, one more scrape is answered 503 at once; a probe is answered at once. */
    @Test
    void scrapesOverTheirPlacesAreAnswered503AndProbesStillPass() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger rendering = new AtomicInteger();
        closing.add(release::countDown);
        Gauge.builder("test.slow", () -> {
            rendering.incrementAndGet();
            await().atMost(Duration.ofSeconds(60)).until(() -> release.getCount() == 0);
            return 1.0;
        }).register(metrics.registry());
        AdminServer server = start(AdminServer.Settings.of(Duration.ofSeconds(5)).withCaps(3, 1),
                () -> new Health(true, List.of()));
        List<Socket> scrapers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Socket scraper = connect(server);
            scraper.getOutputStream().write(request("/metrics", null));
            scrapers.add(scraper);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.busyAnswers() == 2 && rendering.get() >= 1);

        Answer busy = get(server, "/metrics", null);
        assertThat(busy.status()).isEqualTo(503);
        assertThat(busy.headers()).containsEntry("retry-after", "1");
        assertThat(server.busyRefusals()).isEqualTo(1);
        assertThat(get(server, "/health/live", null).status()).isEqualTo(200);

        release.countDown();
        for (Socket scraper : scrapers) {
            assertThat(read(scraper).status()).isEqualTo(200);
        }
    }

    /**
     * With every place taken, a new connection takes over an idle one; when every one has an answer
     * in progress it is closed as it is accepted, and counted.
     */
    @Test
    void aNewConnectionTakesOverAnIdleOneAndIsRefusedWhenNoneIsIdle() throws Exception {
        AtomicInteger rendered = new AtomicInteger();
        Health huge = hugeHealth();
        AdminServer server = start(AdminServer.Settings.of(Duration.ofSeconds(30)).withCaps(3, 1), () -> {
            rendered.incrementAndGet();
            return huge;
        });
        for (int i = 0; i < 2; i++) { // answers of 8 MiB to clients that take none: in progress for good
            Socket stuck = connect(server);
            stuck.getOutputStream().write(request("/health/ready", null));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> rendered.get() == 2);
        Socket idle = connect(server);
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 3);

        assertThat(get(server, "/health/live", null).status()).isEqualTo(200);
        assertThat(idle.getInputStream().read()).as("the idle connection, closed to make room").isEqualTo(-1);
        assertThat(server.evictedConnections()).isEqualTo(1);

        Socket third = connect(server);
        third.getOutputStream().write(request("/health/ready", null));
        await().atMost(Duration.ofSeconds(20)).until(() -> rendered.get() == 3);
        try (Socket refused = new Socket(server.address().getAddress(), server.address().getPort())) {
            refused.setSoTimeout(SOCKET_TIMEOUT_MILLIS);
            assertThat(readOrReset(refused)).as("closed as it was accepted").isEqualTo(-1);
        }
        assertThat(server.refusedConnections()).isEqualTo(1);
    }

    private AdminServer start(AdminServer.Settings settings, java.util.function.Supplier<Health> health) {
        AdminServer server = new AdminServer(NodeId.of("n1"), group, "127.0.0.1", 0, settings, metrics, health);
        closing.add(server);
        return server;
    }

    private Socket connect(AdminServer server) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(server.address());
        socket.setSoTimeout(SOCKET_TIMEOUT_MILLIS);
        closing.add(socket);
        return socket;
    }

    private static int readOrReset(Socket socket) {
        try {
            return socket.getInputStream().read();
        } catch (IOException reset) {
            return -1;
        }
    }

    private static byte[] request(String path, @Nullable String authorization) {
        return ("GET " + path + " HTTP/1.1\r\nHost: x\r\n" + (authorization == null ? ""
                : "Authorization: " + authorization + "\r\n") + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    private Answer get(AdminServer server, String path, @Nullable String authorization) throws IOException {
        try (Socket socket = new Socket(server.address().getAddress(), server.address().getPort())) {
            socket.setSoTimeout(SOCKET_TIMEOUT_MILLIS);
            socket.getOutputStream().write(request(path, authorization));
            return read(socket);
        }
    }

    private record Answer(int status, Map<String, String> headers) {}

    /** The status and headers of the next answer on {@code socket}; its body is skipped. */
    private static Answer read(Socket socket) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.UTF_8));
        String status = in.readLine();
        assertThat(status).as("an answer").isNotNull().startsWith("HTTP/1.1 ");
        Map<String, String> headers = new LinkedHashMap<>();
        for (String header = in.readLine(); header != null && !header.isEmpty(); header = in.readLine()) {
            int colon = header.indexOf(':');
            headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
        }
        long length = Long.parseLong(headers.getOrDefault("content-length", "0"));
        for (long skipped = 0; skipped < length; ) {
            long n = in.skip(length - skipped);
            if (n <= 0) {
                throw new IOException("the answer ended inside its body");
            }
            skipped += n;
        }
        return new Answer(Integer.parseInt(status.substring(9, 12)), headers);
    }

    /** About 8.5 MiB of JSON per {@code /health/ready} answer: more than loopback buffers hold. */
    private static Health hugeHealth() {
        List<Health.NotServing> replicas = new ArrayList<>();
        for (int i = 0; i < 120_000; i++) {
            replicas.add(new Health.NotServing("a-service-with-a-long-name", i, ReplicaRole.RECOVERING));
        }
        return new Health(true, replicas);
    }
}
