package io.neptune.examples.demo;

import static java.util.Objects.requireNonNullElse;

import io.neptune.client.Aggregate;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.ConfigException;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.ReplicaRole;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.config.ConfigNode;
import io.neptune.examples.auction.AuctionService;
import io.neptune.examples.blast.BlastDatabase;
import io.neptune.examples.blast.BlastHits;
import io.neptune.examples.blast.BlastQuery;
import io.neptune.examples.blast.SyntheticSequences;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.discussion.DiscussionService;
import io.neptune.examples.front.FrontService;
import io.neptune.examples.gateway.DemoControl;
import io.neptune.examples.gateway.HttpGateway;
import io.neptune.examples.search.DocumentLoader;
import io.neptune.examples.search.ManPages;
import io.neptune.examples.search.SearchService;
import io.neptune.server.HostingConfig;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import io.neptune.server.cli.LocalCluster;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code neptune demo}: a local cluster of node processes hosting the discussion group, the
 * auction and the persistent cache (64 partitions each, replicated) and the document search
 * service (8 partitions, indexing the system's man pages in the background), the multi-tier front
 * service (4 unreplicated partitions, each page a fan-out to the discussion group and the auction), NCBI's {@code blastn}
 * as the process-backed BLAST service when it is installed (4 partitions of a synthetic nucleotide
 * database), a gateway node, and the
 * dissertation's mixed workload with progress lines and a RESULT line that also counts lost
 * writes. With {@code --chaos} a node is killed a third of the way through and restarted at two
 * thirds.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start a local replicated cluster with the example applications and drive a workload.")
public final class DemoCommand implements Callable<Integer> {
    static final List<Class<?>> SERVICES = List.of(DiscussionService.class, AuctionService.class, CacheService.class,
            SearchService.class, FrontService.class);
    /** The sequences of the demo's BLAST database. */
    static final SyntheticSequences BLAST_SEQUENCES = SyntheticSequences.DEMO;

    @Option(names = "--duration", defaultValue = "20s", paramLabel = "TIME",
            description = "How long the workload runs, e.g. 10s or 2m (default: ${DEFAULT-VALUE}); 0 runs none.")
    private String duration;

    @Option(names = "--clients", defaultValue = "16", description = "Concurrent callers (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--nodes", defaultValue = "4", description = "Node processes (default: ${DEFAULT-VALUE}).")
    private int nodes;

    @Option(names = "--replicas", defaultValue = "3", description = "Replicas per partition (default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--port", defaultValue = "8080",
            description = "Port of the HTTP gateway and web UI on 127.0.0.1 (default: ${DEFAULT-VALUE}); 0 picks a free one.")
    private int port;

    @Option(names = "--chaos", description = "Kill a node a third of the way through and restart it at two thirds.")
    private boolean chaos;

    @Option(names = "--fresh", description = "Delete the data directory first.")
    private boolean fresh;

    @Option(names = "--policy", defaultValue = "random-polling", completionCandidates = PolicyNames.class,
            description = "Load-balancing policy of the client: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private String policy;

    /** Every {@link BalancingPolicy}'s config name, for the help (a list written out went stale). */
    static final class PolicyNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Arrays.stream(BalancingPolicy.values()).map(BalancingPolicy::configName).iterator();
        }
    }

    @Option(names = "--exit", description = "Stop the cluster after the workload instead of waiting for Ctrl-C.")
    private boolean exit;

    @Option(names = "--search-documents", defaultValue = "2000", paramLabel = "N",
            description = "Man pages (from /usr/share/man/man1) the search service indexes at start, in the"
                    + " background (default: ${DEFAULT-VALUE}); 0 indexes none.")
    private int searchDocuments;

    @Option(names = "--no-blast", description = "Do not host the BLAST service even if blastn is installed.")
    private boolean noBlast;

    @Option(names = "--admin-token", paramLabel = "TOKEN",
            description = "The gateway's admin token, which the dashboard's kill and start buttons and scripts send as"
                    + " 'Authorization: Bearer TOKEN' (default: a random one, kept in DIR/" + DemoAdminToken.FILE + ").")
    private @Nullable String adminToken;

    @Option(names = "--no-tracing",
            description = "Record no spans (by default every process writes its spans to DIR/" + DemoTracing.FILE + ").")
    private boolean noTracing;

    @Option(names = "--otlp-endpoint", paramLabel = "URL",
            description = "Also send the spans to this OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318 (default: "
                    + DemoTracing.ENDPOINT_VARIABLE + " if set, else nowhere).")
    private @Nullable String otlpEndpoint;

    @Option(names = "--data", defaultValue = "neptune-data", paramLabel = "DIR",
            description = "Data directory, kept between runs unless --fresh (default: ${DEFAULT-VALUE}).")
    private Path data;

    /** The BLAST database the nodes search, or null if they host no BLAST service; set before the nodes start. */
    private volatile @Nullable BlastDatabase blast;
    /** The demo's certificate authority, opened at start. */
    private volatile @Nullable DemoCertificates certificates;

    @Override
    public Integer call() throws Exception {
        Duration workloadTime = duration.equals("0") ? Duration.ZERO : ConfigNode.parseDuration("--duration", duration);
        BalancingPolicy balancing;
        try {
            balancing = BalancingPolicy.fromConfigName(policy);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("--policy", requireNonNullElse(e.getMessage(), e.toString()));
        }
        validate();
        DemoTracing tracing = noTracing ? null : DemoTracing.of(data, otlpEndpoint, System.getenv());
        if (fresh) {
            deleteTree(data);
        }
        Path discovery = data.resolve("discovery");
        deleteTree(discovery); // stale discovery files of an earlier run would only slow the start
        Files.createDirectories(discovery);
        String cluster = "demo-" + ProcessHandle.current().pid();
        blast = noBlast ? null : prepareBlast();
        certificates = DemoCertificates.open(data.resolve("certs"));
        LocalCluster processes = localCluster(tracing);
        OpenTelemetrySdk sdk = null;
        if (tracing != null) {
            tracing.clearFile();
            sdk = tracing.openSdk();
        }
        OpenTelemetrySdk demoSdk = sdk;
        List<AutoCloseable> resources = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        Thread cleanup = new Thread(() -> closeAll(resources, demoSdk, processes, tracing, done),
                "neptune-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            System.out.printf("Starting %d Neptune nodes (data in %s, logs in %s)%n", nodes, data.toAbsolutePath(),
                    data.resolve("logs").toAbsolutePath());
            System.out.println("Tracing: " + (tracing == null ? "off (--no-tracing)" : tracing.description()));
            for (int i = 0; i < nodes; i++) {
                Process process = processes.start(nodeConfig(i, cluster, discovery));
                System.out.printf("  %s started (pid %d)%n", name(i), process.pid());
            }
            // the gateway's node: an operator, as its dashboard drains, kills and starts nodes
            NeptuneNode.Builder clientBuilder = NeptuneNode.builder(NodeConfig.builder().node("demo-client")
                    .ioThreads(2).dataDirectory(data.resolve("demo-client"))
                    .security(certificates().security(new Principal(Principal.Role.OPERATOR, "demo")))
                    .membership(MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery).build())
                    .client(ClientConfig.builder().policy(balancing).build()).build());
            if (demoSdk != null) {
                clientBuilder.openTelemetry(demoSdk); // the gateway's HTTP spans and the workload's CLIENT spans
            }
            NeptuneNode client = clientBuilder.start();
            resources.add(client);
            awaitReplicas(client, blast);
            System.out.printf("Cluster ready: %d nodes; discussion, auction and cache with %d partitions, search with"
                    + " %d%s, front with %d, each partition with %d replicas%n", nodes, MixedWorkload.PARTITIONS,
                    SearchService.PARTITIONS, blast == null ? "" : ", blast with " + blast.partitions(),
                    FrontService.PARTITIONS, replicas);
            DemoAdminToken token = DemoAdminToken.open(adminToken, data);
            HttpGateway.Builder gatewayBuilder = HttpGateway.builder(client).port(port).adminToken(token.token())
                    .demoControl(new ProcessControl(processes, cluster, discovery));
            if (blast != null) {
                gatewayBuilder.blastExample(BLAST_SEQUENCES.exampleQuery(0));
            }
            HttpGateway gateway = gatewayBuilder.start();
            resources.add(0, gateway);
            // the token in the fragment: the page reads it, the browser never sends it, no server logs it
            System.out.printf("Web UI and dashboard: http://127.0.0.1:%d/#token=%s%n", gateway.port(), token.token());
            Path tokenFile = token.file();
            System.out.printf("Admin token (scripts send it as 'Authorization: Bearer TOKEN' to POST /admin/...): %s%n",
                    tokenFile == null ? "as given with --admin-token" : "in " + tokenFile);
            client.adminUrl().ifPresent(url -> System.out.printf("Client metrics (the workload's calls, load polls):"
                    + " %s/metrics%n", url));
            if (blast != null) {
                blastExample(client, gateway.port());
            }
            if (searchDocuments > 0) {
                indexInBackground(client, gateway.port(), resources);
            }
            if (!workloadTime.isZero()) {
                runWorkload(client, processes, cluster, discovery, workloadTime);
            }
            if (!exit) {
                System.out.println("Cluster is up; press Ctrl-C to stop it.");
                done.await();
            }
            return 0;
        } finally {
            if (exit) {
                Runtime.getRuntime().removeShutdownHook(cleanup);
                closeAll(resources, demoSdk, processes, tracing, done);
            }
        }
    }

    /** The node processes: with tracing, each runs {@link DemoNodeMain}, which installs its SDK first. */
    private LocalCluster localCluster(@Nullable DemoTracing tracing) {
        Path config = data.resolve("config");
        Path logs = data.resolve("logs");
        if (tracing == null) {
            return new LocalCluster(config, logs);
        }
        return new LocalCluster(config, logs, tracing.nodeJvmOptions(), DemoNodeMain.class.getName());
    }

    /**
     * Builds the BLAST database in the data directory (once; later runs reuse it) if NCBI BLAST+ is
     * installed, and says what it did; null if the BLAST service is not hosted.
     */
    private @Nullable BlastDatabase prepareBlast() {
        Optional<String> version = BlastDatabase.blastnVersion();
        if (version.isEmpty()) {
            System.out.println("BLAST: not hosted (no blastn on the PATH; on Debian: apt-get install ncbi-blast+)");
            return null;
        }
        long start = System.nanoTime();
        try {
            BlastDatabase database = BlastDatabase.build(data.resolve("blast-db"), BLAST_SEQUENCES,
                    BlastDatabase.DEFAULT_PARTITIONS);
            System.out.printf(Locale.ROOT, "BLAST: blastn %s over %,d synthetic sequences (%,d bases, seed %d) in %d"
                    + " partitions, ready in %.1f s%n", version.get(), database.sequences(), database.letters(),
                    BLAST_SEQUENCES.seed(), database.partitions(), (System.nanoTime() - start) / 1e9);
            return database;
        } catch (RuntimeException e) {
            System.out.println("BLAST: not hosted (cannot build its database: " + e.getMessage() + ")");
            return null;
        }
    }

    /** Runs the example query through the cluster and prints the best hit: the service works end to end. */
    private static void blastExample(NeptuneNode client, int port) {
        long start = System.nanoTime();
        try {
            BlastQuery query = new BlastQuery(BLAST_SEQUENCES.exampleQuery(0));
            List<Integer> partitions = java.util.stream.IntStream.range(0, client.client().partitions(
                    BlastDatabase.SERVICE)).boxed().toList();
            Aggregate<ProcessResponse> answer = client.client().aggregateAsync(NeptuneHandle.create(),
                    BlastDatabase.SERVICE, partitions, "run", ProcessRequest.of(query.fasta()), ProcessResponse.class,
                    CallOptions.timeout(Duration.ofSeconds(30))).join();
            List<BlastHits.Hit> hits = BlastHits.merge(answer.results().values().stream()
                    .map(response -> BlastHits.parse(response.output())).toList(), 1_000);
            System.out.printf(Locale.ROOT, "BLAST: example query (%d bases of family 0) found %d sequences in %d ms%s%s;"
                    + " try http://127.0.0.1:%d/#blast%n", query.bases().length(), hits.size(),
                    (System.nanoTime() - start) / 1_000_000,
                    hits.isEmpty() ? "" : ", best " + hits.get(0).id() + " (bit score " + hits.get(0).score() + ")",
                    answer.failures().isEmpty() ? "" : ", partitions " + answer.failures().keySet() + " failed: "
                            + answer.failures().values().iterator().next().getMessage(), port);
        } catch (RuntimeException e) {
            System.out.println("BLAST: the example query failed: " + e.getMessage());
        }
    }

    /** Indexes the man pages (or the synthetic fallback) through the cluster on a daemon thread, and says when done. */
    private void indexInBackground(NeptuneNode client, int port, List<AutoCloseable> resources) {
        Thread thread = new Thread(() -> {
            long start = System.nanoTime();
            DocumentLoader.Corpus corpus = DocumentLoader.manPagesOrSynthetic(ManPages.DEFAULT_DIRECTORY,
                    searchDocuments);
            System.out.printf("Search: indexing %s in the background%n", corpus.description());
            // a few writes at a time: the index fills in the background while the workload keeps its latency
            DocumentLoader.Result result = DocumentLoader.load(client.client(), corpus.documents(), 4,
                    CallOptions.timeout(Duration.ofSeconds(30)));
            String failed = result.failed() == 0 ? ""
                    : " (" + result.failed() + " failed, first: " + result.firstFailure() + ")";
            if (result.notSent() > 0) {
                System.out.printf(Locale.ROOT, "Search: indexing stopped as the demo stops, after %,d documents in"
                        + " %.1f s%s; %,d not sent%n", result.indexed(), (System.nanoTime() - start) / 1e9, failed,
                        result.notSent());
            } else {
                System.out.printf(Locale.ROOT, "Search: indexed %,d documents in %.1f s%s; try"
                        + " http://127.0.0.1:%d/#search%n", result.indexed(), (System.nanoTime() - start) / 1e9,
                        failed, port);
            }
        }, "neptune-demo-search-indexer");
        thread.setDaemon(true);
        resources.add(0, () -> stopIndexing(thread)); // before the client it writes through closes
        thread.start();
    }

    /** Stops the search indexer if it still runs, and waits for its writes in flight (30 s timeout each). */
    private static void stopIndexing(Thread thread) throws InterruptedException {
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(TimeUnit.MINUTES.toMillis(1));
        }
    }

    private void runWorkload(NeptuneNode client, LocalCluster processes, String cluster, Path discovery,
            Duration time) throws InterruptedException {
        MixedWorkload workload = new MixedWorkload(client.client(), clients, System.out);
        workload.seed();
        Map<NodeId, Long> before = client.client().responsesByNode();
        long seconds = Math.max(1, time.toSeconds());
        String victim = name(ThreadLocalRandom.current().nextInt(nodes));
        Chaos chaosRun = chaos ? new Chaos(processes, victim,
                () -> nodeConfig(Integer.parseInt(victim.substring(5)) - 1, cluster, discovery), seconds) : null;
        System.out.printf("Running the mixed workload: %d clients for %s%s%n", clients, duration,
                chaosRun != null ? chaosRun.description() : "");
        workload.run(time, second -> {
            if (chaosRun != null) {
                chaosRun.onSecond(second);
            }
        });
        System.out.println("Verifying every acknowledged write...");
        long lost = workload.verify();
        Map<NodeId, Long> after = client.client().responsesByNode();
        System.out.println();
        System.out.println("Requests served per node:");
        long sum = 0;
        for (Map.Entry<NodeId, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        int serving = 0;
        for (Map.Entry<NodeId, Long> e : after.entrySet()) {
            long served = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            serving += served > 0 ? 1 : 0;
            System.out.printf(Locale.ROOT, "  %-12s %,10d %6.1f%%%n", e.getKey(), served,
                    sum == 0 ? 0.0 : 100.0 * served / sum);
        }
        System.out.printf("Acknowledged writes: %,d; lost: %d%n", workload.acknowledgedWrites(), lost);
        System.out.println(workload.summary(serving) + " lost=" + lost);
        if (exit && chaosRun != null) {
            chaosRun.awaitRestart();
        }
    }

    /** The gateway's kill and start buttons, on the demo's node processes. */
    private final class ProcessControl implements DemoControl {
        private final LocalCluster processes;
        private final String cluster;
        private final Path discovery;

        ProcessControl(LocalCluster processes, String cluster, Path discovery) {
            this.processes = processes;
            this.cluster = cluster;
            this.discovery = discovery;
        }

        @Override
        public List<String> nodes() {
            List<String> names = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                names.add(name(i));
            }
            return names;
        }

        @Override
        public void kill(String node) {
            processes.kill(node);
        }

        @Override
        public void start(String node) {
            int index = nodes().indexOf(node);
            if (index < 0) {
                throw new IllegalArgumentException("node: '" + node + "' (expected: one of " + nodes() + ")");
            }
            processes.start(nodeConfig(index, cluster, discovery)); // a no-op while it runs; replaces a crashed one
        }

        @Override
        public long pid(String node) {
            Process process = processes.processes().get(node);
            return process == null ? -1 : process.pid();
        }
    }

    private static String name(int index) {
        return "node-" + (index + 1);
    }

    private void validate() {
        if (nodes < 1) {
            throw new ConfigException("--nodes", nodes + " (expected: >= 1)");
        }
        if (replicas < 1 || replicas > nodes) {
            throw new ConfigException("--replicas", replicas + " (expected: 1.." + nodes + ")");
        }
        if (clients < 1) {
            throw new ConfigException("--clients", clients + " (expected: >= 1)");
        }
        if (searchDocuments < 0) {
            throw new ConfigException("--search-documents", searchDocuments + " (expected: >= 0)");
        }
    }

    private DemoCertificates certificates() {
        DemoCertificates opened = certificates;
        if (opened == null) {
            throw new IllegalStateException("the demo's certificates are opened at start");
        }
        return opened;
    }

    /** Partition p lives on nodes p, p+1, ..., p+replicas-1 (mod nodes), with priorities replicas..1. */
    private NodeConfigFile nodeConfig(int index, String cluster, Path discovery) {
        BlastDatabase blast = this.blast;
        NodeConfig node = NodeConfig.builder().node(NodeId.of(name(index))).ioThreads(2)
                .dataDirectory(data.resolve(name(index)).toAbsolutePath())
                .security(certificates().security(Principal.node(NodeId.of(name(index)))))
                .membership(MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery.toAbsolutePath())
                        .build())
                .build();
        List<NodeConfigFile.HostedService> services = new ArrayList<>();
        for (Class<?> service : SERVICES) {
            services.add(new NodeConfigFile.HostedService(service.getName(),
                    placement(index, ServiceDescriptor.of(service).partitions(), 4)));
        }
        List<NodeConfigFile.HostedProcess> processes = new ArrayList<>();
        if (blast != null) {
            ProcessConfig process = blast.processConfig();
            processes.add(new NodeConfigFile.HostedProcess(process,
                    placement(index, process.partitions(), process.maxProcesses())));
        }
        return new NodeConfigFile(node, services, processes);
    }

    /** Where a service lives on node {@code index}: partition p on nodes p..p+replicas-1 (mod nodes). */
    private HostingConfig placement(int index, int partitionCount, int workers) {
        List<Integer> partitions = new ArrayList<>();
        Map<Integer, Integer> priorities = new HashMap<>();
        for (int p = 0; p < partitionCount; p++) {
            int offset = Math.floorMod(index - p, nodes);
            if (offset < replicas) {
                partitions.add(p);
                priorities.put(p, replicas - offset);
            }
        }
        return HostingConfig.builder().partitions(partitions).priorities(priorities).replicas(replicas)
                .workers(workers).build();
    }

    private void awaitReplicas(NeptuneNode client, @Nullable BlastDatabase blast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (ready(client) && (blast == null || serving(client, BlastDatabase.SERVICE, blast.partitions()))) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new NeptuneException("the partitions did not all get " + replicas + " serving replicas and a primary"
                + " within 120 s; known nodes: " + client.knownNodes());
    }

    private boolean ready(NeptuneNode client) {
        for (Class<?> type : SERVICES) {
            ServiceDescriptor descriptor = ServiceDescriptor.of(type);
            String service = descriptor.name();
            if (descriptor.consistency() == ConsistencyLevel.LEVEL_1) { // unreplicated: no primary to wait for
                if (!serving(client, service, descriptor.partitions())) {
                    return false;
                }
                continue;
            }
            for (int p = 0; p < descriptor.partitions(); p++) {
                Map<NodeId, ReplicaRole> roles = client.replicaRoles(service, p);
                if (roles.size() < replicas || roles.containsValue(ReplicaRole.RECOVERING) || !roles.containsValue(ReplicaRole.PRIMARY)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether every partition of a service without a primary (process-backed or level 1) has all its replicas serving. */
    private boolean serving(NeptuneNode client, String service, int partitions) {
        for (int p = 0; p < partitions; p++) {
            Map<NodeId, ReplicaRole> roles = client.replicaRoles(service, p);
            if (roles.size() < replicas || roles.containsValue(ReplicaRole.RECOVERING)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Stops the gateway and the demo's node, closes the SDK (its last spans are written), then stops
     * the node processes (each writes its last spans as it exits) and says where the traces are.
     */
    private static void closeAll(List<AutoCloseable> resources, @Nullable OpenTelemetrySdk sdk,
            LocalCluster processes, @Nullable DemoTracing tracing, CountDownLatch done) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                System.err.println("neptune: " + e.getMessage());
            }
        }
        resources.clear();
        if (sdk != null) {
            sdk.close();
        }
        processes.close();
        if (tracing != null && done.getCount() > 0) {
            System.out.println(tracesWritten(tracing));
        }
        done.countDown();
    }

    /** The summary's tracing line: where the traces went and how much was written. */
    static String tracesWritten(DemoTracing tracing) {
        long bytes;
        try {
            bytes = Files.exists(tracing.file()) ? Files.size(tracing.file()) : 0;
        } catch (IOException e) {
            bytes = 0;
        }
        String sent = tracing.tracesUrl().map(url -> "; also sent to " + url).orElse("");
        return String.format(Locale.ROOT, "Traces: %,d bytes of OTLP JSON lines in %s%s", bytes, tracing.file(),
                sent);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.deleteIfExists(path);
            }
        }
    }
}
