package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.runtime.SimOptions.Mode;
import io.neptune.server.internal.replication.runtime.Simulation.Plan;
import io.neptune.server.internal.replication.runtime.Simulation.Summary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The short run of the deterministic simulation that {@code mvn verify} makes ({@code ./neptune
 * simulate} makes long ones), and the properties the simulation itself must have: a seed replays
 * exactly, and its checkers see a broken rule.
 */
class SimulationTest {
    private static Summary run(Plan plan) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Summary summary = Simulation.run(plan, plan.threadsToUse(), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(summary.failures()).as(out.toString(StandardCharsets.UTF_8)).isEmpty();
        return summary;
    }

    @Test
    void everyModeKeepsEveryRuleUnderCrashesPausesSplitsAndLossyLinks() {
        Summary summary = run(new Plan(1, 12, EnumSet.allOf(Mode.class), 5_000, 5, true, false, 2));

        for (Mode mode : Mode.values()) {
            List<SimCluster.Result> runs = summary.results().stream().filter(r -> r.options().mode() == mode).toList();
            assertThat(runs).as(mode.cliName()).hasSize(12);
            assertThat(runs.stream().mapToInt(SimCluster.Result::acknowledged).sum()).as(mode.cliName()).isPositive();
            assertThat(runs.stream().mapToInt(SimCluster.Result::faults).sum()).as(mode.cliName()).isGreaterThan(12);
        }
    }

    @Test
    void aSeedReplaysToTheSameTraceHash() {
        Plan plan = new Plan(41, 3, EnumSet.allOf(Mode.class), 4_000, 5, true, false, 2);

        Summary first = run(plan);
        Summary second = run(plan);

        assertThat(second.results().stream().map(SimCluster.Result::traceHash).toList())
                .isEqualTo(first.results().stream().map(SimCluster.Result::traceHash).toList());
        assertThat(second.traceHash()).isEqualTo(first.traceHash());
        assertThat(first.results().stream().map(SimCluster.Result::traceHash).distinct().count())
                .as("different seeds and modes run differently").isEqualTo(first.results().size());
    }

    /**
     * A majority primary whose own force is slower than its followers' sees a commit point above its
     * durable log: it must wait for its force, not queue its apply again and again until the force
     * completes (it spun a pool thread for as long as the force took, found by profiling the simulation).
     */
    @Test
    void aPrimaryWaitingForItsOwnForceDoesNotSpin(@TempDir Path dir) {
        SimCluster cluster = new SimCluster(new SimOptions(Mode.MAJORITY_LEVEL_2, 3, 20_000, false, false), 3, dir);
        cluster.nodes().get(0).slowDisk(Long.MAX_VALUE / 2); // n0, the primary by priority: every force 50-500 ms

        SimCluster.Result result = cluster.run();

        assertThat(result.passed()).as(result.report()).isTrue();
        assertThat(result.acknowledged()).isPositive();
        double stepsPerSimulatedSecond = result.steps() / (result.simulatedMillis() / 1000);
        assertThat(stepsPerSimulatedSecond).as("events per simulated second").isLessThan(2_000);
    }

    /**
     * Seeds that find a fixed bug again when its fix is reverted, each run as it found it: the seed, the
     * mode, and what broke. A change to the simulation changes what a seed runs: then revert the fix,
     * find failing seeds again (`./neptune simulate --seeds 300`), and put them here.
     */
    @ParameterizedTest(name = "seed {0} of {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        // A replica back from a crash whose log held records of an old epoch beyond its primary's log start answered
        // every install-snapshot with "gap" (its log end was past the start), and the primary, probing back below its
        // start, told it to install again, for ever (first found as seed 78 of majority-3; with the fix reverted,
        // these seeds of today's simulation fail so: 1,181 install-snapshots in seed 152).
        "152 | FAIL_STOP_LEVEL_2 | a replica whose log diverges above the primary's log start installs a snapshot",
        "218 | MAJORITY_LEVEL_3 | a replica whose log diverges above the primary's log start installs a snapshot",
        // A fail-stop primary elected after a catastrophe was killed before any follower heard of its epoch, then
        // lost for a while; the operator's promote of the most complete survivor led that epoch again: "two
        // primaries in epoch 2: n0 and n1". A primary now counts as one only once its followers hold its epoch.
        "474 | FAIL_STOP_LEVEL_3 | a primary killed before its followers heard of its epoch was counted as primary",
        // Two fail-stop secondaries elected themselves at one epoch at once, each ranking above the other on a status
        // the other sent before its last writes arrived; both were announced. Now neither is announced before its
        // secondaries hold its epoch, and one that hears of the other first steps down (this seed fails so without it).
        "168 | FAIL_STOP_LEVEL_2 | two secondaries elected at one epoch on stale statuses were both announced",
    })
    void seedsThatFoundBugsPass(long seed, Mode mode, String what, @TempDir Path dir) {
        SimCluster.Result result = new SimCluster(new SimOptions(mode, 5, 10_000, true, seed % 2 == 0), seed, dir)
                .run();

        assertThat(result.passed()).as(what + ": " + result.violation() + "\n" + result.report()).isTrue();
    }

    /**
     * A voter must answer its grant only once the epoch is forced. With the grant sent first (the order of
     * {@code MajorityReplica.onVote} moved back), this seed's voter grants n0 epoch 8, crashes before the
     * write, restarts 20 ms later at epoch 7 and grants n1 epoch 8 too: "two primaries in epoch 8: n0 and
     * n1". Three replicas: with five, no seed of 1-1000 lined up two candidates around one crash. Like the
     * seeds above, it finds the bug only with the simulation as it is now: a change to it may move the crash.
     */
    @Test
    void aVoterThatCrashesRightAfterItsGrantGrantsNoOneElseThatEpoch(@TempDir Path dir) {
        SimCluster.Result result = new SimCluster(new SimOptions(Mode.MAJORITY_LEVEL_3, 3, 10_000, true, 842 % 2 == 0),
                842, dir).run();

        assertThat(result.passed()).as(result.violation() + "\n" + result.report()).isTrue();
    }

    /**
     * A fail-stop primary is announced only once its secondaries hold its epoch; before that an operator's
     * take-over of it was answered "already primary" at once, naming an epoch no other replica knew (killed
     * then, it would never have been anyone's primary). In this seed n0 takes the role over by priority at
     * epoch 7 and an operator's move-primary reaches it before its secondaries answered: "n0 answered
     * takeOver ... already primary, epoch=7, but it is SECONDARY at epoch 6". Now it answers once announced.
     */
    @Test
    void aFailStopPrimaryAnswersATakeOverOnlyOnceItIsAnnounced(@TempDir Path dir) {
        SimCluster.Result result = new SimCluster(new SimOptions(Mode.FAIL_STOP_LEVEL_3, 5, 10_000, true, 389 % 2 == 0),
                389, dir).run();

        assertThat(result.passed()).as(result.violation() + "\n" + result.report()).isTrue();
    }

    /**
     * A fail-stop replica that installed a snapshot must forget where its old log's epochs started. In
     * this seed n0, once primary at epoch 4, installs n2's snapshot at LSN 218 (n2 led epoch 5 from
     * there), leads again, and answers n1's join (n1 holds n0's old epoch-4 record 218, never committed)
     * with "keep up to 218": it still believed epoch 5 began at 219. n1 then found its record 218 at
     * epoch 4 where n0 said 5, took its applied records for diverged ("NEP-REPL-001 ... needs to be
     * rebuilt") and never caught up. Now the install rebuilds the epoch starts from the boundary, and
     * n1 is told to install a snapshot.
     */
    @Test
    void aFailStopReplicaThatInstalledASnapshotMeasuresJoinersAgainstTheSnapshotsEpoch(@TempDir Path dir) {
        SimCluster.Result result = new SimCluster(new SimOptions(Mode.FAIL_STOP_LEVEL_2, 5, 10_000, true, 634 % 2 == 0),
                634, dir).run();

        assertThat(result.passed()).as(result.violation() + "\n" + result.report()).isTrue();
    }

    @Test
    void theHistoryCatchesTwoPrimariesInAnEpoch() {
        SimHistory history = new SimHistory(true);

        history.primary(3, "n0");
        history.primary(3, "n0");
        assertThat(history.violation()).isNull();
        history.primary(3, "n1");

        assertThat(history.violation()).isEqualTo("two primaries in epoch 3: n0 and n1");
    }

    @Test
    void theHistoryCatchesTwoWritesAtOneLsnAndAnAcknowledgementOfAnother() {
        SimHistory diverged = new SimHistory(true);
        diverged.appliedAt("n0", 5, "c0w1");
        diverged.appliedAt("n1", 5, "c1w1");
        assertThat(diverged.violation()).isEqualTo("n1 applied write c1w1 at LSN 5, where another replica applied c0w1");

        SimHistory misacknowledged = new SimHistory(true);
        misacknowledged.appliedAt("n0", 5, "c0w1");
        misacknowledged.acknowledged("c1w1", 5);
        assertThat(misacknowledged.violation())
                .isEqualTo("write c1w1 was acknowledged at version 5, where the replicas applied c0w1");
    }

    @Test
    void theOperatorCatchesAnAcceptedPromoteOfAReplicaThatDoesNotLeadAndARefusalWithoutAReason() {
        ReplicaState primary = new ReplicaState(ReplicaRole.PRIMARY, 9, 4, 9, 4, 0);
        ReplicaState secondary = new ReplicaState(ReplicaRole.SECONDARY, 9, 4, 9, 4, 0);

        assertThat(SimOperator.broken(primary, new PeerMessages.PromoteReply(true, "", 4))).isNull();
        assertThat(SimOperator.broken(secondary, new PeerMessages.PromoteReply(false, "a live primary exists: n0", 4)))
                .isNull();
        assertThat(SimOperator.broken(secondary, new PeerMessages.PromoteReply(true, "", 4)))
                .isEqualTo("it is SECONDARY at epoch 4");
        assertThat(SimOperator.broken(primary, new PeerMessages.PromoteReply(true, "", 3))).isEqualTo("it leads epoch 4");
        assertThat(SimOperator.broken(secondary, new PeerMessages.PromoteReply(false, " ", 4)))
                .isEqualTo("it gave no reason");
    }

    @Test
    void aCatastropheAllowsAPrimaryOnlyOnceAMajorityOrEveryReplicaOrAnOperatorsPromoteIsBack() {
        assertThat(SimCatastrophe.tooSoon(true, 5, 2, false)).isEqualTo("only 2 of 5 back");
        assertThat(SimCatastrophe.tooSoon(true, 5, 3, false)).isNull();
        assertThat(SimCatastrophe.tooSoon(false, 5, 4, false)).isEqualTo("only 4 of 5 back and no operator's promote");
        assertThat(SimCatastrophe.tooSoon(false, 5, 4, true)).isNull();
        assertThat(SimCatastrophe.tooSoon(false, 5, 5, false)).isNull();
    }

    @Test
    void aServiceCatchesAWriteAppliedTwice() {
        SimHistory history = new SimHistory(false);
        SimService service = new SimService(history, "n2", false);
        LogRecord record = new LogRecord(7, 1, RecordKind.WRITE, new RequestId(1, 9), "", 0, "put",
                "c0w9".getBytes(StandardCharsets.UTF_8));

        service.execute(record);
        assertThat(history.violation()).isNull();
        service.execute(record);

        assertThat(history.violation())
                .isEqualTo("n2 applied write c0w9 (request " + new RequestId(1, 9) + ") a second time, at LSN 7 (WRITE, epoch 1),"
                        + " first at LSN 7");
    }

    @Test
    void badArgumentsAreRefusedNamingTheOption() {
        assertThat(Simulation.parse("--seeds", "5", "--seed", "9", "--modes", "majority-3,write-anywhere-1",
                "--threads", "1"))
                .isEqualTo(new Plan(9, 5, EnumSet.of(Mode.MAJORITY_LEVEL_3, Mode.WRITE_ANYWHERE_LEVEL_1), 10_000, 5,
                        true, false, 1));
        assertThatThrownBy(() -> Simulation.parse("--threads", "0"))
                .hasMessage("--threads: 0 (expected: at least 1)");
        assertThatThrownBy(() -> Simulation.parse("--seeds", "0"))
                .hasMessage("--seeds: 0 (expected: at least 1)");
        assertThatThrownBy(() -> Simulation.parse("--modes", "majority-1"))
                .hasMessageStartingWith("mode: majority-1 (expected one of: majority-2");
        assertThatThrownBy(() -> Simulation.parse("--steps"))
                .hasMessage("--steps needs a value");
        assertThatThrownBy(() -> Simulation.parse("--fast"))
                .hasMessageStartingWith("unknown option: --fast");
    }
}
