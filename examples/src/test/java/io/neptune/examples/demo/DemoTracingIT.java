package io.neptune.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.examples.echo.EchoService;
import io.neptune.examples.echo.EchoService.EchoReply;
import io.neptune.examples.echo.EchoService.EchoRequest;
import io.neptune.server.HostingConfig;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import io.neptune.server.cli.LocalCluster;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's tracing end to end, set up as the demo sets it up: a node process started through
 * {@link DemoNodeMain} with {@link DemoTracing#nodeJvmOptions()}, a client node in this JVM with
 * {@link DemoTracing#openSdk()}, echo calls from one to the other. Once both have stopped, the traces
 * file must be OTLP JSON lines holding Neptune's spans, among them a SERVER span of the node process
 * that is the child of a CLIENT span of this JVM; and an OTLP/HTTP collector on 127.0.0.1, named by
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT}, must have been sent the spans of both processes.
 */
class DemoTracingIT {
    private static final String SCOPE = "io.neptune";
    private static final int SPAN_KIND_SERVER = 2;
    private static final int SPAN_KIND_CLIENT = 3;
    private static final int CALLS = 20;

    @TempDir
    Path work;

    @Test
    void spansOfTheClientAndTheNodeProcessGoToTheFileAndTheEndpoint() throws Exception {
        AtomicInteger exports = new AtomicInteger();
        HttpServer collector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        collector.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                body.readAllBytes();
            }
            exports.incrementAndGet();
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1); // an empty ExportTraceServiceResponse: all accepted
            exchange.close();
        });
        collector.start();
        try {
            DemoTracing tracing = DemoTracing.of(work, null, Map.of(DemoTracing.ENDPOINT_VARIABLE,
                    "http://127.0.0.1:" + collector.getAddress().getPort()));
            assertThat(tracing.tracesUrl()).contains("http://127.0.0.1:" + collector.getAddress().getPort()
                    + "/v1/traces");
            callThroughTracedProcesses(tracing);
            // both processes have stopped, and each closed its SDK on the way: the file is complete
            List<JsonNode> spans = neptuneSpans(tracing.file());
            assertThat(spans).as("spans of scope %s in %s", SCOPE, tracing.file()).isNotEmpty();
            assertThat(spans).as("a SERVER span of the echo service")
                    .anyMatch(span -> kind(span) == SPAN_KIND_SERVER && "echo".equals(attribute(span, "neptune.service")));
            assertThat(clientServerPairs(spans)).as("SERVER spans (node-1) whose parent is a CLIENT span (the client)"
                    + " of the same trace").isGreaterThanOrEqualTo(CALLS);
            await("the collector to be sent the spans of the client and of node-1").atMost(Duration.ofSeconds(10))
                    .until(() -> exports.get() >= 2);
        } finally {
            collector.stop(0);
        }
    }

    /** Starts node-1 as the demo does, makes {@value #CALLS} calls from a traced client node, stops both. */
    private void callThroughTracedProcesses(DemoTracing tracing) throws IOException {
        String cluster = "traced-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100_000;
        MembershipConfig membership = MembershipConfig.builder().cluster(cluster)
                .discoveryDirectory(Files.createDirectories(work.resolve("discovery"))).build();
        List<String> jvm = new ArrayList<>(tracing.nodeJvmOptions());
        jvm.add("-XX:TieredStopAtLevel=1"); // C1 only: a short-lived node
        try (LocalCluster processes = new LocalCluster(work.resolve("config"), work.resolve("logs"), jvm,
                DemoNodeMain.class.getName())) {
            processes.start(new NodeConfigFile(NodeConfig.builder().node(NodeId.of("node-1")).ioThreads(1)
                    .dataDirectory(work.resolve("data/node-1")).membership(membership).build(),
                    List.of(new NodeConfigFile.HostedService(EchoService.class.getName(),
                            HostingConfig.builder().workers(2).build())), List.of()));
            OpenTelemetrySdk sdk = tracing.openSdk();
            try (NeptuneNode client = NeptuneNode.builder(NodeConfig.builder().node("client").ioThreads(1)
                    .membership(membership).build()).openTelemetry(sdk).start()) {
                await("node-1 in the client's yellow page").atMost(Duration.ofSeconds(30))
                        .until(() -> client.replicasOf("echo", 0).size() == 1);
                NeptuneHandle handle = NeptuneHandle.create();
                for (int i = 0; i < CALLS; i++) {
                    EchoReply reply = client.client().call(handle, "echo", 0, "echo", AccessMode.READ,
                            new EchoRequest("traced " + i), EchoReply.class);
                    assertThat(reply.node()).isEqualTo("node-1");
                }
            } finally {
                sdk.close();
            }
        } // node-1 gets SIGTERM, stops, and its SDK writes its last spans as the JVM exits
    }

    /** The spans of scope {@value #SCOPE} in every line of {@code file}, each line parsed as OTLP JSON. */
    private static List<JsonNode> neptuneSpans(Path file) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).as("lines of %s", file).isNotEmpty();
        List<JsonNode> spans = new ArrayList<>();
        for (String line : lines) {
            JsonNode request = json.readTree(line);
            assertThat(request.path("resourceSpans").isArray()).as("an ExportTraceServiceRequest: %s", line).isTrue();
            for (JsonNode resourceSpans : request.get("resourceSpans")) {
                assertThat(attribute(resourceSpans.path("resource"), "service.name")).isEqualTo(DemoTracing.SERVICE_NAME);
                for (JsonNode scopeSpans : resourceSpans.path("scopeSpans")) {
                    if (SCOPE.equals(scopeSpans.path("scope").path("name").asText())) {
                        scopeSpans.path("spans").forEach(spans::add);
                    }
                }
            }
        }
        return spans;
    }

    /** How many SERVER spans are children of a CLIENT span of the same trace. */
    private static long clientServerPairs(List<JsonNode> spans) {
        return spans.stream().filter(server -> kind(server) == SPAN_KIND_SERVER && "node-1".equals(
                attribute(server, "neptune.node"))).filter(server -> spans.stream().anyMatch(client ->
                kind(client) == SPAN_KIND_CLIENT && "client".equals(attribute(client, "neptune.node"))
                        && client.path("traceId").asText().equals(server.path("traceId").asText())
                        && client.path("spanId").asText().equals(server.path("parentSpanId").asText()))).count();
    }

    private static int kind(JsonNode span) {
        return span.path("kind").asInt();
    }

    /** The string value of attribute {@code key} of a span or resource, or null. */
    private static String attribute(JsonNode owner, String key) {
        for (JsonNode attribute : owner.path("attributes")) {
            if (key.equals(attribute.path("key").asText())) {
                return attribute.path("value").path("stringValue").asText();
            }
        }
        return null;
    }
}
