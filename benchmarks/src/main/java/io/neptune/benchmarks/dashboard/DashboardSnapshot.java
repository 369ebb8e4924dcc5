package io.neptune.benchmarks.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.neptune.benchmarks.Report;
import io.neptune.examples.cli.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./neptune bench dashboard}: runs the demo (with a node killed and restarted) while a real
 * Prometheus scrapes every node's {@code /metrics}, then draws the Grafana dashboard in docs/grafana
 * from that Prometheus with {@link DashboardRenderer}. Prometheus finds the nodes the way an
 * operator's would: a file_sd target file, rewritten every second from the admin URLs the
 * gateway's {@code /admin/cluster} lists (a restarted node comes back on another admin port).
 * Everything listens on 127.0.0.1.
 */
@Command(name = "dashboard", mixinStandardHelpOptions = true,
        description = "Run the demo under a real Prometheus and draw the Grafana dashboard's panels from it.")
public final class DashboardSnapshot implements Callable<Integer> {
    private static final Duration SCRAPE_INTERVAL = Duration.ofSeconds(2);
    private static final Pattern GATEWAY = Pattern.compile("^Web UI.*http://127\\.0\\.0\\.1:(\\d+)/");
    /** The demo's own client node, which makes the workload's calls: not in the gateway's node list. */
    private static final Pattern CLIENT_METRICS = Pattern.compile("^Client metrics.*http://(127\\.0\\.0\\.1:\\d+)/metrics");

    @Option(names = "--duration", defaultValue = "3m", description = "How long the demo's workload runs (default: ${DEFAULT-VALUE}).")
    private String duration = "3m";

    @Option(names = "--prometheus", defaultValue = "prometheus",
            description = "The Prometheus binary (Debian's package 'prometheus'; default: ${DEFAULT-VALUE}).")
    private String prometheusBinary = "prometheus";

    @Option(names = "--dashboard", defaultValue = "docs/grafana/neptune-dashboard.json",
            description = "The dashboard JSON (default: ${DEFAULT-VALUE}).")
    private Path dashboard = Path.of("docs/grafana/neptune-dashboard.json");

    @Option(names = "--out", defaultValue = "docs/images/grafana-dashboard.png",
            description = "Where the PNG goes (default: ${DEFAULT-VALUE}).")
    private Path out = Path.of("docs/images/grafana-dashboard.png");

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public static void main(String[] args) {
        System.exit(new CommandLine(new DashboardSnapshot()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(dashboard)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--dashboard: no file " + dashboard);
        }
        Path work = Files.createTempDirectory("neptune-dashboard-");
        Path targets = work.resolve("targets.json");
        writeTargets(targets, Set.of());
        int prometheusPort = freePort();
        Files.writeString(work.resolve("prometheus.yml"), String.join("\n",
                "global:",
                "  scrape_interval: " + SCRAPE_INTERVAL.toSeconds() + "s",
                "  evaluation_interval: " + SCRAPE_INTERVAL.toSeconds() + "s",
                "scrape_configs:",
                "  - job_name: neptune",
                "    file_sd_configs:",
                "      - files: ['" + targets + "']",
                "        refresh_interval: 1s",
                ""));
        System.out.printf(Locale.ROOT, "dashboard: work directory %s; load average %s%n", work, Report.loadAverage());
        Process prometheus = start(List.of(prometheusBinary, "--config.file=" + work.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + work.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + prometheusPort,
                "--log.level=warn"), work.resolve("prometheus.log"));
        Process demo = null;
        try {
            demo = start(List.of(javaBinary(), "-Xmx768m", "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "demo", "--duration", duration, "--chaos", "--exit", "--fresh", "--port", "0",
                    "--data", work.resolve("demo").toString()), null);
            CompletableFuture<Integer> gatewayPort = new CompletableFuture<>();
            Set<String> clients = ConcurrentHashMap.newKeySet();
            echo(demo, gatewayPort, clients);
            int port;
            try {
                port = gatewayPort.get(5, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                System.err.println("dashboard: " + (e.getCause() == null ? e : e.getCause().getMessage()) + " (its output is above)");
                return 1;
            }
            Instant start = Instant.now();
            System.out.printf(Locale.ROOT, "dashboard: Prometheus on http://127.0.0.1:%d/ scrapes the nodes the gateway"
                    + " on port %d lists%n", prometheusPort, port);
            while (demo.isAlive()) {
                Set<String> live = adminTargets(port);
                if (!live.isEmpty()) {
                    live.addAll(clients);
                    writeTargets(targets, live);
                }
                demo.waitFor(1, TimeUnit.SECONDS);
            }
            Instant end = Instant.now();
            if (demo.exitValue() != 0) {
                System.out.printf("dashboard: the demo exited with %d; drawing what Prometheus has%n", demo.exitValue());
            }
            DashboardRenderer renderer = new DashboardRenderer(URI.create("http://127.0.0.1:" + prometheusPort),
                    SCRAPE_INTERVAL);
            List<String> panels = renderer.render(dashboard, start, end, SCRAPE_INTERVAL, out);
            panels.forEach(line -> System.out.println("  " + line));
            System.out.printf(Locale.ROOT, "dashboard: %d panels over %d s written to %s%n", panels.size(),
                    Duration.between(start, end).toSeconds(), out);
            return 0;
        } finally {
            if (demo != null) {
                demo.destroy();
                demo.waitFor(30, TimeUnit.SECONDS);
            }
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
        }
    }

    /** The admin URLs (host:port) of the nodes the gateway lists as up; empty if it cannot be asked. */
    private Set<String> adminTargets(int gatewayPort) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + gatewayPort + "/admin/cluster")).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString());
            Set<String> targets = new TreeSet<>();
            for (JsonNode node : json.readTree(response.body()).path("nodes")) {
                String url = node.path("adminUrl").asText("");
                if (!url.isEmpty() && !node.path("state").asText().equals("DOWN")) {
                    targets.add(URI.create(url).getAuthority());
                }
            }
            return targets;
        } catch (IOException e) {
            return Set.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Set.of();
        }
    }

    /** Replaces the file_sd target file atomically, as Prometheus expects of a file it watches. */
    private void writeTargets(Path file, Set<String> targets) throws IOException {
        ArrayNode groups = json.createArrayNode();
        ArrayNode list = groups.addObject().putArray("targets");
        targets.forEach(list::add);
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temporary, json.writeValueAsString(groups));
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Copies the demo's output to ours with a prefix, completes {@code gatewayPort} when it prints it
     * and adds its client node's admin address to {@code clients}.
     */
    private static void echo(Process demo, CompletableFuture<Integer> gatewayPort, Set<String> clients) {
        Thread echo = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(demo.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    System.out.println("  demo | " + line);
                    Matcher gateway = GATEWAY.matcher(line);
                    if (gateway.find()) {
                        gatewayPort.complete(Integer.parseInt(gateway.group(1)));
                    }
                    Matcher client = CLIENT_METRICS.matcher(line);
                    if (client.find()) {
                        clients.add(client.group(1));
                    }
                }
            } catch (IOException e) {
                gatewayPort.completeExceptionally(e);
            }
            gatewayPort.completeExceptionally(new IOException("the demo stopped before it started its gateway"));
        }, "dashboard-demo-output");
        echo.setDaemon(true);
        echo.start();
    }

    private static Process start(List<String> command, @Nullable Path log) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        if (log != null) {
            builder.redirectOutput(log.toFile());
        }
        try {
            return builder.start();
        } catch (IOException e) {
            throw new IOException("cannot run " + command.get(0) + " (" + e.getMessage() + ")"
                    + (command.get(0).contains("prometheus") ? "; install it with: apt-get install prometheus" : ""), e);
        }
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
