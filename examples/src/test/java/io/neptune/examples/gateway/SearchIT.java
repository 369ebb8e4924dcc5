package io.neptune.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.core.ClassStats;
import io.neptune.core.ReplicaRole;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.examples.gateway.Http.Reply;
import io.neptune.examples.gateway.internal.SearchRoutes;
import io.neptune.examples.search.DocumentLoader;
import io.neptune.examples.search.SearchService;
import io.neptune.examples.search.SearchService.PutDocument;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * {@code GET /api/search} against an in-JVM cluster: {@code node-0} and {@code node-1} host search
 * partitions 0 to 5 with two replicas each, {@code node-2} hosts partitions 6 and 7 alone, and a
 * gateway node hosts nothing. The nodes schedule by service class (gold and bronze). The last test
 * stops {@code node-2}: partitions 6 and 7 are then down, and a search answers the other six's hits
 * with {@code failedPartitions} [6, 7].
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SearchIT {
    private static final Set<Integer> LONE = Set.of(6, 7);
    private static final int DOCUMENTS = 60;

    private static MiniCluster cluster;
    private static NeptuneNode lone;
    private static NeptuneNode gatewayNode;
    private static HttpGateway gateway;
    private static Http http;

    @BeforeAll
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    static void startCluster() {
        SchedulingConfig classes = SchedulingConfig.builder().policy(SchedulingPolicy.YID)
                .serviceClass(new ServiceClass("gold", YieldFunction.hybrid(4, Duration.ofSeconds(1), 2,
                        Duration.ofSeconds(5)), 0.2))
                .serviceClass(new ServiceClass("bronze", YieldFunction.hybrid(1, Duration.ofSeconds(1), 0.5,
                        Duration.ofSeconds(5)), 0.2))
                .build();
        cluster = MiniCluster.start(0, b -> b);
        List<Integer> shared = IntStream.range(0, SearchService.PARTITIONS).filter(p -> !LONE.contains(p)).boxed()
                .toList();
        for (int i = 0; i < 2; i++) {
            int node = i;
            Map<Integer, Integer> priorities = shared.stream().collect(Collectors.toMap(p -> p,
                    p -> p % 2 == node ? 2 : 1));
            HostingConfig hosting = HostingConfig.builder().partitions(shared).priorities(priorities).replicas(2)
                    .workers(2).build();
            cluster.add(cluster.config("node-" + i, ClientConfig.defaults()).toBuilder().scheduling(classes).build(),
                    b -> b.host(new SearchService(), hosting));
        }
        lone = cluster.add(cluster.config("node-2", ClientConfig.defaults()).toBuilder().scheduling(classes).build(),
                b -> b.host(new SearchService(), HostingConfig.builder().partitions(LONE).replicas(1).workers(2)
                        .build()));
        gatewayNode = cluster.add("gateway", ClientConfig.defaults(), b -> b);
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).until(() -> serving(gatewayNode));
        DocumentLoader.Result loaded = DocumentLoader.load(gatewayNode.client(), documents(), 8,
                CallOptions.timeout(Duration.ofSeconds(20)));
        assertThat(loaded.failed()).as(loaded.firstFailure()).isZero();
        assertThat(loaded.indexed()).isEqualTo(DOCUMENTS);
        gateway = HttpGateway.builder(gatewayNode).port(0).callTimeout(Duration.ofSeconds(10))
                .adminToken(GatewayCluster.ADMIN_TOKEN).start();
        http = new Http("http://127.0.0.1:" + gateway.port(), Optional.of("search-it-" + UUID.randomUUID()));
    }

    @AfterAll
    static void stopCluster() {
        if (gateway != null) {
            gateway.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Every document says "neptune"; "doc-N" says "cluster" N times (up to 20), so the best are known. */
    private static List<PutDocument> documents() {
        List<PutDocument> documents = new ArrayList<>();
        for (int i = 0; i < DOCUMENTS; i++) {
            documents.add(new PutDocument("doc-" + i, "Document " + i + " <" + i + ">",
                    "neptune partitions services. " + "cluster ".repeat(Math.min(i, 20)) + "filler text " + i));
        }
        return documents;
    }

    private static boolean serving(NeptuneNode node) {
        Map<Integer, List<AnnouncedReplica>> byPartition = node.admin().announcedReplicas().stream()
                .filter(r -> r.service().equals(SearchService.NAME))
                .collect(Collectors.groupingBy(AnnouncedReplica::partition));
        return byPartition.size() == SearchService.PARTITIONS && byPartition.entrySet().stream().allMatch(e ->
                e.getValue().size() == (LONE.contains(e.getKey()) ? 1 : 2)
                        && e.getValue().stream().filter(r -> r.role() == ReplicaRole.PRIMARY).count() == 1
                        && e.getValue().stream().noneMatch(r -> r.role() == ReplicaRole.RECOVERING));
    }

    private static List<String> ids(JsonNode json) {
        List<String> ids = new ArrayList<>();
        json.get("hits").forEach(hit -> ids.add(hit.get("id").asText()));
        return ids;
    }

    @Test
    @Order(1)
    void answersTheBestKOfEveryPartitionMergedByScore() {
        Reply reply = http.get("/api/search?q=cluster&k=5");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        JsonNode json = reply.json();
        assertThat(json.fieldNames()).toIterable().containsExactly("hits", "failedPartitions", "partitions",
                "documents");
        assertThat(json.get("partitions").asInt()).isEqualTo(SearchService.PARTITIONS);
        assertThat(json.get("documents").asLong()).as("every document loaded, all indexed").isEqualTo(DOCUMENTS);
        assertThat(json.get("failedPartitions")).isEmpty();
        assertThat(json.get("hits")).hasSize(5);
        JsonNode first = json.get("hits").get(0);
        assertThat(first.fieldNames()).toIterable().containsExactly("id", "title", "score", "snippet");
        assertThat(first.get("snippet").asText()).contains("<b>cluster</b>");
        List<Double> scores = new ArrayList<>();
        json.get("hits").forEach(hit -> scores.add(hit.get("score").asDouble()));
        assertThat(scores).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        assertThat(scores.get(0)).isPositive();
        assertThat(ids(json)).as("the documents saying 'cluster' most often")
                .allSatisfy(id -> assertThat(Integer.parseInt(id.substring(4))).isGreaterThanOrEqualTo(20));

        Reply all = http.get("/api/search?q=neptune+partitions");
        assertThat(all.status()).isEqualTo(200);
        assertThat(all.json().get("hits")).as("default k").hasSize(SearchRoutes.DEFAULT_K);
        List<String> everything = ids(http.get("/api/search?q=neptune&k=100").json());
        assertThat(everything).hasSize(DOCUMENTS);
        Set<Integer> partitions = everything.stream().map(id -> new PutDocument(id, "t", "").partition())
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(partitions).as("hits merged from every partition").hasSize(SearchService.PARTITIONS);
        assertThat(http.get("/api/search?q=%22filler+text+7%22&k=3").json().get("hits").get(0).get("title").asText())
                .isEqualTo("Document 7 <7>");
        assertThat(http.get("/api/search?q=absentword").json().get("hits")).isEmpty();
    }

    @Test
    @Order(2)
    void refusesAMissingOrEmptyQueryAndKOutside1To100() {
        Map<String, String> bad = Map.ofEntries(
                Map.entry("/api/search", "q: missing (expected: the words to search for)"),
                Map.entry("/api/search?k=5", "q: missing (expected: the words to search for)"),
                Map.entry("/api/search?q=", "q: missing (expected: the words to search for)"),
                Map.entry("/api/search?q=+%20", "q: blank (expected: the words to search for)"),
                Map.entry("/api/search?q=a&q=b", "q: given 2 times (expected: once)"),
                Map.entry("/api/search?q=a&k=0", "k: '0' (expected: an integer 1..100)"),
                Map.entry("/api/search?q=a&k=101", "k: '101' (expected: an integer 1..100)"),
                Map.entry("/api/search?q=a&k=-1", "k: '-1' (expected: an integer 1..100)"),
                Map.entry("/api/search?q=a&k=abc", "k: 'abc' (expected: an integer 1..100)"),
                Map.entry("/api/search?q=a&k=", "k: '' (expected: an integer 1..100)"),
                Map.entry("/api/search?q=a&k=99999999999", "k: '99999999999' (expected: an integer 1..100)"),
                Map.entry("/api/search?q=" + "x".repeat(501), "q: 501 characters (expected: at most 500)"),
                Map.entry("/api/search?q=%C3%28", "query string: escaped bytes that are not UTF-8 (expected:"
                        + " name=value pairs separated by &, percent-encoded UTF-8)"));
        bad.forEach((path, error) -> {
            Reply reply = http.get(path);
            assertThat(reply.status()).as(path + " -> " + reply).isEqualTo(400);
            assertThat(reply.error()).as(path).isEqualTo(error);
        });
        try (RawHttp raw = new RawHttp(gateway.port())) { // java.net.URI refuses to send a bad escape
            RawHttp.Response malformed = raw.write("GET /api/search?q=%zz HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(malformed.status()).isEqualTo(400);
            assertThat(malformed.body()).contains("query string: bad escape at '%zz' (expected: % and two hex digits)");
        }
        assertThat(http.get("/api/search?q=a&k=1").status()).isEqualTo(200);
        assertThat(http.get("/api/search?q=a&k=100&unknown=1").status()).isEqualTo(200);
        Reply post = http.post("/api/search?q=a", "{}");
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("Allow")).contains("GET");
    }

    @Test
    @Order(3)
    void queriesRunInTheirServiceClass() {
        long before = goldArrivals();
        // only a caller with a token chooses its class; an anonymous one gets the default (AccessPolicy)
        Reply gold = http.send(http.asAdmin("/api/search?q=cluster&k=3").header("X-Neptune-Class", "gold").GET());
        assertThat(gold.status()).as(gold.toString()).isEqualTo(200);
        assertThat(gold.json().get("hits")).hasSize(3);
        assertThat(goldArrivals()).as("every partition counted a gold query").isGreaterThanOrEqualTo(
                before + SearchService.PARTITIONS);
        Reply unknown = http.send(http.asAdmin("/api/search?q=cluster").header("X-Neptune-Class", "platinum").GET());
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(400);
        assertThat(unknown.error()).contains("unknown service class 'platinum'");
    }

    private static long goldArrivals() {
        long arrivals = 0;
        for (NeptuneNode node : cluster.nodes().subList(0, 3)) { // the nodes hosting search
            for (ClassStats stats : node.classStats(SearchService.NAME)) {
                arrivals += stats.serviceClass().equals("gold") ? stats.arrivals() : 0;
            }
        }
        return arrivals;
    }

    @Test
    @Order(4)
    void withAPartitionsOnlyNodeDownItAnswersTheOthersAndNamesTheFailedPartitions() {
        List<String> expected = documents().stream().filter(d -> !LONE.contains(d.partition()))
                .map(PutDocument::id).toList();
        assertThat(expected).hasSizeBetween(1, DOCUMENTS - 1);
        lone.close();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            Reply reply = http.get("/api/search?q=neptune&k=100");
            assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
            JsonNode json = reply.json();
            assertThat(json.get("failedPartitions")).as(reply.toString()).hasSize(2);
            assertThat(json.get("failedPartitions").get(0).asInt()).isEqualTo(6);
            assertThat(json.get("failedPartitions").get(1).asInt()).isEqualTo(7);
            assertThat(json.get("partitions").asInt()).isEqualTo(SearchService.PARTITIONS);
            assertThat(ids(json)).containsExactlyInAnyOrderElementsOf(expected);
        });
    }

    /** What the demo does when it stops while its indexer still runs: interrupt it before closing the client. */
    @Test
    @Order(5)
    void anInterruptedLoadSendsNoMoreWaitsForItsWritesInFlightAndCountsTheRestNotSent() throws Exception {
        List<PutDocument> more = IntStream.range(0, 5_000).mapToObj(i -> new PutDocument("more-" + i, "More " + i,
                "more text " + i)).toList();
        AtomicReference<DocumentLoader.Result> result = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        Thread loader = new Thread(() -> {
            result.set(DocumentLoader.load(gatewayNode.client(), more, 2, CallOptions.timeout(Duration.ofSeconds(20))));
            interruptKept.set(Thread.currentThread().isInterrupted());
        }, "search-it-loader");
        loader.start();

        loader.interrupt();
        loader.join(Duration.ofMinutes(1).toMillis());

        assertThat(loader.isAlive()).as("the loader returned").isFalse();
        DocumentLoader.Result loaded = result.get();
        assertThat(loaded.notSent()).as("%s", loaded).isPositive();
        assertThat(loaded.indexed() + loaded.failed() + loaded.notSent()).as("%s", loaded).isEqualTo(more.size());
        assertThat(interruptKept).as("the thread's interrupt status, for its caller").isTrue();
    }
}
