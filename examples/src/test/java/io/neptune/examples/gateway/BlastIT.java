package io.neptune.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.client.ClientConfig;
import io.neptune.core.Partitions;
import io.neptune.examples.blast.BlastDatabase;
import io.neptune.examples.blast.BlastHits;
import io.neptune.examples.blast.BlastHits.Hit;
import io.neptune.examples.blast.BlastQuery;
import io.neptune.examples.blast.SyntheticSequences;
import io.neptune.examples.gateway.Http.Reply;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import io.neptune.server.process.ProcessConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * {@code POST /api/blast} against an in-JVM cluster running the real NCBI {@code blastn} (skipped,
 * saying so, where it is not installed): a synthetic database of 240 sequences in 4 partitions,
 * {@code node-0} and {@code node-1} hosting partitions 0 and 1 with two replicas each and
 * {@code node-2} hosting 2 and 3 alone, and a gateway node. The answers are checked against
 * {@code blastn} run directly over the whole database unpartitioned. The last test stops
 * {@code node-2}: the others' hits still come back, with {@code failedPartitions} [2, 3].
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BlastIT {
    private static final SyntheticSequences SEQUENCES = new SyntheticSequences(7, 40, 6);
    private static final int PARTITIONS = 4;
    private static final Set<Integer> LONE = Set.of(2, 3);
    private static final int FAMILY = 5;

    @TempDir
    static Path directory;

    private static MiniCluster cluster;
    private static NeptuneNode lone;
    private static HttpGateway gateway;
    private static Http http;

    @BeforeAll
    static void startCluster() {
        Optional<String> version = BlastDatabase.blastnVersion();
        Assumptions.assumeTrue(version.isPresent(), "skipped: blastn is not installed (Debian package ncbi-blast+;"
                + " .ci/run installs it)");
        BlastDatabase database = BlastDatabase.build(directory.resolve("partitioned"), SEQUENCES, PARTITIONS);
        ProcessConfig blast = database.processConfig();
        cluster = MiniCluster.start(0, b -> b);
        for (int i = 0; i < 2; i++) {
            cluster.add("node-" + i, ClientConfig.defaults(), b -> b.hostProcess(blast, HostingConfig.builder()
                    .partitions(0, 1).replicas(2).workers(blast.maxProcesses()).build()));
        }
        lone = cluster.add("node-2", ClientConfig.defaults(), b -> b.hostProcess(blast, HostingConfig.builder()
                .partitions(2, 3).replicas(1).workers(blast.maxProcesses()).build()));
        NeptuneNode gatewayNode = cluster.add("gateway", ClientConfig.defaults(), b -> b);
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).until(() -> serving(gatewayNode));
        gateway = HttpGateway.builder(gatewayNode).port(0).callTimeout(Duration.ofSeconds(30))
                .blastExample(SEQUENCES.exampleQuery(FAMILY)).start();
        http = new Http("http://127.0.0.1:" + gateway.port(), Optional.of("blast-it-" + UUID.randomUUID()));
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

    private static boolean serving(NeptuneNode node) {
        Map<Integer, List<AnnouncedReplica>> byPartition = node.admin().announcedReplicas().stream()
                .filter(r -> r.service().equals(BlastDatabase.SERVICE))
                .collect(Collectors.groupingBy(AnnouncedReplica::partition));
        return byPartition.size() == PARTITIONS && byPartition.entrySet().stream()
                .allMatch(e -> e.getValue().size() == (LONE.contains(e.getKey()) ? 1 : 2));
    }

    private static Reply blast(String sequence) {
        return http.post("/api/blast", "{\"sequence\":\"" + sequence + "\"}");
    }

    private static List<Hit> hits(JsonNode json) {
        List<Hit> hits = new ArrayList<>();
        json.get("hits").forEach(hit -> hits.add(new Hit(hit.get("id").asText(), hit.get("score").asDouble(),
                hit.get("evalue").asDouble())));
        return hits;
    }

    /** The same query run by blastn directly over one database of every sequence. */
    private static List<Hit> unpartitioned(String query) throws IOException, InterruptedException {
        BlastDatabase whole = BlastDatabase.build(directory.resolve("whole"), SEQUENCES, 1);
        List<String> command = whole.processConfig().command().stream()
                .map(arg -> arg.replace("{partition}", "0")).toList();
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().write(new BlastQuery(query).fasta().getBytes(StandardCharsets.US_ASCII));
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
        return BlastHits.parse(output);
    }

    @Test
    @Order(1)
    void findsTheQuerysFamilyOnEveryPartitionAsBlastnOverTheWholeDatabaseDoes() throws Exception {
        String query = SEQUENCES.exampleQuery(FAMILY);
        Reply reply = blast(query);
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        JsonNode json = reply.json();
        assertThat(json.fieldNames()).toIterable().containsExactly("hits", "failedPartitions", "partitions");
        assertThat(json.get("failedPartitions")).isEmpty();
        assertThat(json.get("partitions").asInt()).isEqualTo(PARTITIONS);
        List<Hit> hits = hits(json);
        assertThat(hits).as("most of family %d's 6 members", FAMILY).hasSizeGreaterThanOrEqualTo(4);
        assertThat(hits).allSatisfy(hit -> assertThat(hit.id()).startsWith(SyntheticSequences.id(FAMILY, 0)
                .substring(0, 7)));
        assertThat(hits.stream().map(hit -> Partitions.of(hit.id(), PARTITIONS)).collect(Collectors.toSet()))
                .as("the family is spread over the partitions, and the merge gathers it").hasSizeGreaterThan(1);
        List<Hit> expected = unpartitioned(query);
        assertThat(hits).extracting(Hit::id).containsExactlyElementsOf(expected.stream().map(Hit::id).toList());
        for (int i = 0; i < hits.size(); i++) {
            assertThat(hits.get(i).score()).as(hits.get(i).id()).isEqualTo(expected.get(i).score());
            // e-values are computed against the whole database's size; the length correction counts
            // each partition's own number of sequences, a few percent off the whole database's.
            assertThat(hits.get(i).evalue()).as(hits.get(i).id())
                    .isCloseTo(expected.get(i).evalue(), within(expected.get(i).evalue() * 0.1));
        }
    }

    @Test
    @Order(2)
    void takesFastaAndKAndSaysWhatIsHostedAndTheExample() {
        Reply info = http.get("/api/blast");
        assertThat(info.status()).as(info.toString()).isEqualTo(200);
        assertThat(info.json().get("available").asBoolean()).isTrue();
        assertThat(info.json().get("partitions").asInt()).isEqualTo(PARTITIONS);
        assertThat(info.json().get("example").asText()).isEqualTo(SEQUENCES.exampleQuery(FAMILY));
        String fasta = ">my query\\n" + SEQUENCES.exampleQuery(FAMILY).toLowerCase().replaceAll("(.{60})", "$1\\\\n");
        Reply reply = http.post("/api/blast", "{\"sequence\":\"" + fasta + "\",\"k\":2}");
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        assertThat(reply.json().get("hits")).hasSize(2);
    }

    @Test
    @Order(3)
    void thePageRunsTheExampleQueryAndListsTheHits(@TempDir Path profile) throws Exception {
        Browser.assumeInstalled();
        try (Browser browser = Browser.open(profile)) {
            WebDriver driver = browser.driver();
            driver.get("http://127.0.0.1:" + gateway.port() + "/#blast");
            browser.waiting().until(ExpectedConditions.elementToBeClickable(By.id("blast-example"))).click();
            assertThat(driver.findElement(By.id("blast-sequence")).getAttribute("value"))
                    .isEqualTo(SEQUENCES.exampleQuery(FAMILY));
            driver.findElement(By.id("blast-submit")).click();
            browser.waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("blast-meta"),
                    "of 4 partitions"));
            List<String> ids = driver.findElements(By.cssSelector("#blast-results tbody tr")).stream()
                    .map(row -> row.getAttribute("data-id")).toList();
            assertThat(ids).isEqualTo(unpartitioned(SEQUENCES.exampleQuery(FAMILY)).stream().map(Hit::id).toList());
            browser.save("blast.png");
        }
    }

    @Test
    @Order(4)
    void refusesWhatIsNotANucleotideSequenceWith400() {
        Reply protein = blast("MKVLAAGIVGLLLA");
        assertThat(protein.status()).as(protein.toString()).isEqualTo(400);
        assertThat(protein.error()).contains("'L' at position 4 is not a nucleotide");
        Reply tooLong = blast("A".repeat(BlastQuery.MAX_LENGTH + 1));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.error()).contains("more than 10000 bases");
        assertThat(http.post("/api/blast", "{}").error()).isEqualTo("sequence: missing (expected: a string)");
        assertThat(http.post("/api/blast", "{\"sequence\":42}").status()).isEqualTo(400);
        assertThat(http.post("/api/blast", "{\"sequence\":\"\"}").error()).startsWith("sequence: empty");
        assertThat(http.post("/api/blast", "{\"sequence\":\"ACGT\",\"k\":0}").error()).isEqualTo(
                "k: 0 (expected: 1..100)");
        assertThat(http.post("/api/blast", "[\"ACGT\"]").status()).isEqualTo(400);
    }

    @Test
    @Order(5)
    void withAPartitionsOnlyNodeDownItAnswersTheOthersAndNamesTheFailedPartitions() throws Exception {
        String query = SEQUENCES.exampleQuery(FAMILY);
        List<String> expected = unpartitioned(query).stream().map(Hit::id)
                .filter(id -> !LONE.contains(Partitions.of(id, PARTITIONS))).toList();
        assertThat(expected).isNotEmpty();
        lone.close();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            Reply reply = blast(query);
            assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
            JsonNode json = reply.json();
            assertThat(json.get("failedPartitions")).as(reply.toString()).hasSize(2);
            assertThat(json.get("failedPartitions").get(0).asInt()).isEqualTo(2);
            assertThat(json.get("failedPartitions").get(1).asInt()).isEqualTo(3);
            assertThat(hits(json)).extracting(Hit::id).containsExactlyElementsOf(expected);
        });
    }
}
