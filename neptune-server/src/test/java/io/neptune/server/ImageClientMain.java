package io.neptune.server;

import static org.awaitility.Awaitility.await;

import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The client of {@link ContainerImageIT}, a process in the test network's client namespace (the test's
 * JVM has no route to the nodes): joins the cluster as the member of {@code args[0]} (a YAML config
 * with no services), waits until the yellow page names {@code args[1]} nodes that host services and
 * each one's {@code /health/ready} answers 200, calls {@link EchoTestService} on every partition,
 * prints what it saw ({@code NODES}, {@code READY}, {@code CALL}, {@code DONE} lines) and exits.
 */
final class ImageClientMain {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private ImageClientMain() {}

    public static void main(String[] args) throws Exception {
        int expected = Integer.parseInt(args[1]);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try (NeptuneNode node = NodeConfigFile.load(Path.of(args[0])).toBuilder().start()) {
            List<ClusterAdmin.NodeStatus> servers = await("a yellow page of " + expected + " nodes hosting services")
                    .atMost(TIMEOUT).pollInterval(Duration.ofMillis(250))
                    .until(() -> node.admin().nodes().stream().filter(s -> !s.services().isEmpty()).toList(),
                            s -> s.size() == expected);
            System.out.println("NODES " + String.join(",",
                    servers.stream().map(ClusterAdmin.NodeStatus::node).toList()));
            for (ClusterAdmin.NodeStatus server : servers) {
                URI ready = URI.create(server.adminUrl() + "/health/ready");
                int status = await(server.node() + "'s " + ready + " answering 200").atMost(TIMEOUT)
                        .pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                        .until(() -> http.send(HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(5)).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode(), s -> s == 200);
                System.out.println("READY " + server.node() + " " + status);
            }
            NeptuneHandle handle = NeptuneHandle.create();
            for (int p = 0; p < 8; p++) {   // EchoTestService's partitions
                Map<?, ?> reply = node.client().call(handle, "echo", p, "echo", AccessMode.READ,
                        Map.of("text", "hello " + p), Map.class);
                System.out.println("CALL " + p + " " + reply.get("text") + " from " + reply.get("node"));
            }
        }
        System.out.println("DONE");
        System.out.flush();
    }
}
