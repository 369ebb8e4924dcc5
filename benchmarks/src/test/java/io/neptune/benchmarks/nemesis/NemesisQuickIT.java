package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.neptune.core.FailoverMode;
import io.neptune.server.NamespaceNetwork;
import io.neptune.server.NetworkUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CI form of the nemesis bench: one quick, seeded run (3 node JVMs and the workload client, each
 * in its own network namespace; a pause, a partition and a kill) must complete with a history and a
 * final state listing every replica, and every checker must find the run valid in majority mode
 * (no acknowledged write lost, none applied twice, replicas agree, reads are prefixes of one order),
 * with placement changes (move-primary) made while the faults are in force.
 * Skipped, saying why, without root or namespace support.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class NemesisQuickIT {
    private static final long SEED = 20_250_101;

    @Test
    void quickRunRecordsAHistoryAndEveryReplicasFinalState() throws Exception {
        NamespaceNetwork.unavailableReason().ifPresent(reason -> abort("nemesis bench needs network namespaces: "
                + reason));
        NemesisBench.Options options = new NemesisBench.Options(true, SEED, FailoverMode.MAJORITY, 2,
                Duration.ofSeconds(40), 1, 3, Path.of("target", "nemesis-it").toAbsolutePath(),
                EnumSet.allOf(FaultSchedule.Kind.class));   // every fault, and placement changes during them
        NemesisRun.Settings quick = NemesisBench.settings(options, SEED);
        NemesisRun.Settings settings = new NemesisRun.Settings(quick.seed(), true, quick.mode(), quick.level(),
                quick.nodes(), quick.degree(), quick.duration(), quick.recovery(), quick.processes(), quick.keys(),
                quick.think(), quick.callTimeout(), Duration.ofSeconds(20), options.faults());
        Path directory = options.out().resolve("seed-" + SEED + "-" + System.currentTimeMillis());
        NemesisRun.Outcome outcome;
        try {
            outcome = new NemesisRun(settings, directory, CrashHook.NONE, System.out::println).call();
        } catch (NetworkUnavailableException e) {
            abort(e.getMessage());
            return;
        }
        NemesisBench.Verdicts verdicts = NemesisBench.checkerVerdicts(outcome);
        NemesisReport.write(outcome, "NemesisQuickIT", verdicts.lines(), verdicts.gaps());
        assertThat(verdicts.passed()).as("checkers on %s:%n%s", directory, String.join("\n", verdicts.lines()))
                .isTrue();
        assertThat(outcome.unsettled()).as("replicas agree after healing").isNull();

        assertThat(outcome.faults()).extracting(Nemesis.Applied::kind)
                .anyMatch(k -> k.startsWith("pause"))
                .anyMatch(k -> k.startsWith("partition") || k.equals("isolate-primary"))
                .contains("kill");
        assertThat(outcome.faults()).allSatisfy(f -> assertThat(f.detail()).doesNotStartWith("failed"));
        // 3 nodes host every partition, so a move-replica finds no node to move to; a move-primary moves the role
        // (or the admin refuses it, which is no failure: the cluster is faulty)
        assertThat(outcome.schedule().placements()).isNotEmpty();
        assertThat(outcome.faults()).extracting(Nemesis.Applied::kind).containsAnyOf("move-primary", "move-replica");
        System.out.println("NemesisQuickIT: " + Nemesis.PlacementTally.of(outcome.faults()));
        // a fault late in the run may end with the run (a kill of two nodes, restarted after the workload stopped)
        assertThat(verdicts.gaps()).as("a write gap per fault").hasSameSizeAs(outcome.faults());
        System.out.println("NemesisQuickIT: writes again after " + verdicts.gaps());

        List<String> history = Files.readAllLines(directory.resolve("history.jsonl"));
        assertThat(history).as("history lines").hasSizeGreaterThan(100);
        ObjectMapper json = new ObjectMapper();
        long completed = history.stream().map(line -> parse(json, line))
                .filter(e -> !e.get("type").asText().equals("invoke")).count();
        assertThat(completed).as("completed operations").isGreaterThan(50);
        assertThat(outcome.history().count("append", "ok")).as("acknowledged appends").isPositive();
        assertThat(outcome.history().count("read", "ok")).as("successful reads").isPositive();

        JsonNode state = json.readTree(directory.resolve("final-state.json").toFile());
        Set<String> replicas = new HashSet<>();
        state.get("replicas").forEach(r -> replicas.add(r.get("partition").asInt() + "@" + r.get("node").asText()));
        Set<String> expected = new HashSet<>();
        for (int p = 0; p < ListAppendService.PARTITIONS; p++) {
            for (int n = 0; n < settings.nodes(); n++) {
                expected.add(p + "@" + NemesisCluster.nodeName(n));   // 3 nodes, 3 replicas: every node
            }
        }
        assertThat(replicas).as("every replica's version and digest in final-state.json").isEqualTo(expected);
        assertThat(state.get("reads").size()).as("lists read from the replicas' files")
                .isEqualTo(outcome.history().keys().size() * settings.degree());
        assertThat(state.get("faults").size()).isEqualTo(outcome.faults().size());
        assertThat(directory.resolve("report.md")).exists();
        assertThat(directory.resolve("timeline.png")).exists();
        assertThat(Files.list(directory.resolve("logs")).map(p -> p.getFileName().toString())
                .collect(Collectors.toSet())).contains("node-1.log", "node-2.log", "node-3.log", "client.log.err");
    }

    private static JsonNode parse(ObjectMapper json, String line) {
        try {
            return json.readTree(line);
        } catch (java.io.IOException e) {
            throw new AssertionError("history line is not JSON: " + line, e);
        }
    }
}
