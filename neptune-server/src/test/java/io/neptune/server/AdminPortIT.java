package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneException;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Appended;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every node's admin port over real HTTP on loopback: {@code /health/ready} is 503 naming the
 * recovering replicas until a majority is up and 200 after; {@code /metrics} counts real calls by
 * service, method and outcome on the server and the client side; the yellow page carries the URL;
 * bad paths and methods are refused.
 */
class AdminPortIT {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static NeptuneNode.Builder journal(NeptuneNode.Builder builder) {
        return builder.host(new JournalTestService(), HostingConfig.builder().replicas(3).build());
    }

    @Test
    void healthTurnsReadyWhenReplicasServeAndMetricsCountRealCalls() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode first = cluster.add("node-0", ClientConfig.defaults(),
                    b -> journal(b).host(new EchoTestService(), HostingConfig.all()));
            String admin = first.adminUrl().orElseThrow();
            assertThat(admin).startsWith("http://127.0.0.1:");

            assertThat(get(admin + "/health/live").statusCode()).isEqualTo(200);
            HttpResponse<String> alone = get(admin + "/health/ready");
            assertThat(alone.statusCode()).as("1 of 3 replicas: no majority, recovering").isEqualTo(503);
            assertThat(alone.body()).contains("\"status\":\"DOWN\"", "\"service\":\"journal\"", "\"role\":\"recovering\"");
            assertThat(first.isReady()).isFalse();
            assertThat(first.awaitReady(Duration.ofMillis(300))).as("awaitReady gives up at its timeout").isFalse();

            cluster.add("node-1", ClientConfig.defaults(), AdminPortIT::journal);
            cluster.add("node-2", ClientConfig.defaults(), AdminPortIT::journal);
            assertThat(first.awaitReady(Duration.ofSeconds(30))).as("node-0 ready once a majority of journal's"
                    + " replicas is up").isTrue();
            assertThat(status(admin + "/health/ready")).isEqualTo(200);
            assertThat(get(admin + "/health").body()).contains("\"status\":\"UP\"", "\"notServing\":[]");

            NeptuneNode client = cluster.add("client", ClientConfig.defaults(), b -> b);
            cluster.awaitNodes(3);
            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < 7; i++) {
                client.client().call(handle, "echo", i % 4, "echo", AccessMode.READ, new Echo("m" + i), Reply.class);
            }
            for (int i = 0; i < 5; i++) {
                client.client().call(handle, "journal", 0, "append", AccessMode.WRITE, new Append("a" + i),
                        Appended.class);
            }

            String server = get(admin + "/metrics").body();
            Map<String, String> echoOk = Map.of("service", "echo", "method", "echo", "outcome", "ok", "node", "node-0");
            assertThat(sample(server, "neptune_server_calls_seconds_count", echoOk)).hasValue(7);
            assertThat(sample(server, "neptune_service_served_total", Map.of("service", "echo"))).hasValue(7);
            assertThat(sample(server, "neptune_replica_lag_lsns", Map.of("service", "journal", "partition", "0")))
                    .isPresent();
            assertThat(server).contains("jvm_memory_used_bytes", "neptune_yellow_page_nodes", "neptune_redo_fsync");

            String clientAdmin = client.adminUrl().orElseThrow();
            String calls = get(clientAdmin + "/metrics").body();
            assertThat(sample(calls, "neptune_client_calls_seconds_count", Map.of("service", "echo", "method", "echo",
                    "outcome", "ok", "node", "client"))).hasValue(7);
            assertThat(sample(calls, "neptune_client_calls_seconds_count", Map.of("service", "journal",
                    "method", "append", "outcome", "ok"))).hasValue(5);
            assertThat(calls).contains("neptune_client_calls_seconds_bucket{", "le=\"0.005\"");

            assertThat(client.admin().nodes()).filteredOn(n -> n.node().equals("node-0")).singleElement()
                    .satisfies(n -> assertThat(n.adminUrl()).isEqualTo(admin));
            assertDashboardNamesExist(server + calls);
        }
    }

    @Test
    void aNodeGivenTheApplicationsRegistryRecordsIntoItAndTakesItsMetersOutWhenItCloses() throws Exception {
        PrometheusMeterRegistry application = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter own = application.counter("app.orders", "region", "eu");
        own.increment(3);
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode node = cluster.add("node-0", ClientConfig.defaults(),
                    b -> b.meterRegistry(application).host(new EchoTestService(), HostingConfig.all()));
            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < 4; i++) {
                node.client().call(handle, "echo", i, "echo", AccessMode.READ, new Echo("m" + i), Reply.class);
            }

            String scrape = application.scrape();
            assertThat(sample(scrape, "neptune_server_calls_seconds_count", Map.of("service", "echo", "method", "echo",
                    "outcome", "ok", "node", "node-0"))).as("the node's call timers, tagged with the node").hasValue(4);
            assertThat(scrape).as("the application's own meter, untagged").contains("app_orders_total{region=\"eu\"} 3.0")
                    .as("the JVM's meters are the application's to bind").doesNotContain("jvm_memory_used_bytes");
            assertThat(get(node.adminUrl().orElseThrow() + "/metrics").body()).as("/metrics renders the application's"
                    + " Prometheus registry").contains("app_orders_total", "neptune_server_calls_seconds_count");

            node.close();
            assertThat(application.scrape()).as("the node's meters left with it; the registry stays open")
                    .doesNotContain("neptune_").contains("app_orders_total{region=\"eu\"} 3.0");
            assertThat(application.isClosed()).isFalse();
        }
    }

    @Test
    void withAnApplicationsRegistryOfAnotherKindMetricsSaysWhereTheMetersAre() throws Exception {
        SimpleMeterRegistry application = new SimpleMeterRegistry();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode node = cluster.add("node-0", ClientConfig.defaults(),
                    b -> b.meterRegistry(application).host(new EchoTestService(), HostingConfig.all()));
            node.client().call(NeptuneHandle.create(), "echo", 0, "echo", AccessMode.READ, new Echo("m"), Reply.class);

            assertThat(application.find("neptune.server.calls").tag("node", "node-0").timers())
                    .as("the node's call timer in the application's registry").isNotEmpty();
            HttpResponse<String> metrics = get(node.adminUrl().orElseThrow() + "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).isEqualTo("# this node records its meters into the application's registry"
                    + " (SimpleMeterRegistry); read them there\n");
        }
    }

    /**
     * Every Neptune metric the Grafana dashboard in docs/ queries is in a real scrape (the class
     * meters only exist on a node that schedules by class, which this one does not).
     */
    private static void assertDashboardNamesExist(String scrape) throws IOException {
        String dashboard = Files.readString(Path.of("..", "docs", "grafana", "neptune-dashboard.json"));
        Set<String> names = new TreeSet<>();
        Matcher matcher = Pattern.compile("neptune_[a-z_]+").matcher(dashboard);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        assertThat(names).hasSizeGreaterThan(15);
        names.removeIf(name -> name.startsWith("neptune_class_"));
        assertThat(names).allSatisfy(name -> assertThat(scrape).as("the dashboard's " + name).contains(name));
    }

    @Test
    void unknownPathsAreNotFoundAndOtherMethodsNotAllowed() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(1, b -> b.host(new EchoTestService(), HostingConfig.all()))) {
            String admin = cluster.node(0).adminUrl().orElseThrow();
            assertThat(get(admin + "/").statusCode()).isEqualTo(404);
            assertThat(get(admin + "/metrics/extra").statusCode()).isEqualTo(404);
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(admin + "/metrics"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("Allow")).hasValue("GET");
            HttpResponse<String> metrics = get(admin + "/metrics?x=1");
            assertThat(metrics.statusCode()).as("a query string does not change the path").isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        }
    }

    @Test
    void aTakenAdminPortStopsTheStartNamingTheSetting() throws IOException {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b);
                ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            NodeConfig config = cluster.config("clash", ClientConfig.defaults()).toBuilder()
                    .adminPort(taken.getLocalPort()).build();
            assertThatThrownBy(() -> NeptuneNode.builder(config).host(new EchoTestService(), HostingConfig.all()).start())
                    .isInstanceOf(NeptuneException.class)
                    .hasMessageContaining("cannot serve the admin port on 127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("check the settings bind-address and admin-port");
        }
    }

    @Test
    void aNodeWithoutAnAdminPortAnnouncesNone() {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode quiet = cluster.add(cluster.config("quiet", ClientConfig.defaults()).toBuilder()
                    .adminPort(NodeConfig.NO_ADMIN_PORT).build(), b -> b.host(new EchoTestService(), HostingConfig.all()));
            assertThat(quiet.adminUrl()).isEmpty();
            cluster.awaitNodes(1);
            assertThat(quiet.admin().nodes()).singleElement().satisfies(n -> assertThat(n.adminUrl()).isEmpty());
            assertThat(quiet.metricsText()).as("the registry still works in-process").contains("neptune_service_load");
        }
    }

    @Test
    void aTokenFileGuardsMetricsAndLeavesHealthOpen(@TempDir Path directory) throws Exception {
        String token = "t0ken-" + ProcessHandle.current().pid();
        Path tokenFile = Files.writeString(directory.resolve("admin-token"), token + "\n");
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NodeConfig config = cluster.config("guarded", ClientConfig.defaults()).toBuilder()
                    .adminTokenFile(tokenFile).build();
            assertThat(config.toString()).as("what the node logs at start").contains(tokenFile.toString())
                    .doesNotContain(token);
            String admin = cluster.add(config, b -> b.host(new EchoTestService(), HostingConfig.all()))
                    .adminUrl().orElseThrow();

            HttpResponse<String> none = get(admin + "/metrics");
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                    .startsWith("Bearer"));
            assertThat(none.body()).doesNotContain(token);
            assertThat(get(admin + "/metrics", "Bearer not-" + token).statusCode()).isEqualTo(403);
            HttpResponse<String> granted = get(admin + "/metrics", "Bearer " + token);
            assertThat(granted.statusCode()).isEqualTo(200);
            assertThat(sample(granted.body(), "neptune_admin_refused_requests_total", Map.of("reason",
                    "unauthenticated"))).hasValue(1);
            assertThat(sample(granted.body(), "neptune_admin_refused_requests_total", Map.of("reason",
                    "forbidden"))).hasValue(1);
            assertThat(get(admin + "/health/live").statusCode()).isEqualTo(200);
            assertThat(get(admin + "/health/ready").statusCode()).isEqualTo(200);
        }
    }

    /** Probes (a kubelet's httpGet) present no client certificate: the admin port must not ask for one. */
    @Test
    void withAdminTlsTheAdminPortServesHttpsWithoutAskingForAClientCertificate() throws Exception {
        try (MiniCluster cluster = MiniCluster.startWithTls(1, b -> b.host(new EchoTestService(), HostingConfig.all()))) {
            assertThat(cluster.node(0).adminUrl()).as("plain HTTP unless asked").hasValueSatisfying(url ->
                    assertThat(url).startsWith("http://"));
            NeptuneNode secure = cluster.add(cluster.config("secure", ClientConfig.defaults()).toBuilder()
                    .adminTls(true).build(), b -> b.host(new EchoTestService(), HostingConfig.all()));
            String admin = secure.adminUrl().orElseThrow();
            assertThat(admin).startsWith("https://127.0.0.1:");
            URI address = URI.create(admin);

            SSLContext trustOnly = SSLContext.getInstance("TLS");
            trustOnly.init(null, trusting(cluster.certificates().trust()), null);
            try (SSLSocket socket = (SSLSocket) trustOnly.getSocketFactory().createSocket(address.getHost(),
                    address.getPort())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
                        .startsWith("HTTP/1.1 200 OK").contains("\"status\":\"UP\"");
                assertThat(socket.getSession().getProtocol()).isIn("TLSv1.3", "TLSv1.2");
            }
            assertThat(status(admin.replace("https://", "http://") + "/health/live")).as("plain HTTP")
                    .isNotEqualTo(200);
        }
    }

    private static TrustManager[] trusting(Path caPem) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caPem)) {
            store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }

    private HttpResponse<String> get(String url, String authorization) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Authorization", authorization).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private int status(String url) {
        try {
            return get(url).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * The value of the sample {@code name} whose labels include {@code labels} (exactly one must
     * match), from Prometheus text.
     */
    static OptionalDouble sample(String text, String name, Map<String, String> labels) {
        Function<String, Boolean> matches = line -> labels.entrySet().stream()
                .allMatch(e -> line.contains(e.getKey() + "=\"" + e.getValue() + "\""));
        double[] values = text.lines().filter(line -> line.startsWith(name + "{")).filter(matches::apply)
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).toArray();
        assertThat(values.length).as(name + labels + " samples").isLessThanOrEqualTo(1);
        return values.length == 0 ? OptionalDouble.empty() : OptionalDouble.of(values[0]);
    }
}
