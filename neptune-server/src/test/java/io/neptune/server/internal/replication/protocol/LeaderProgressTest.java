package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.LogRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The leader progress tracker and its commit rules, driven by hand: no threads, no waits, no log. */
class LeaderProgressTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final long EPOCH = 4;
    private static final long SECOND = 1_000_000_000L;

    /** A log of {@code lastLsn} records whose epochs are given by {@code epochs} (LSN to epoch; the rest EPOCH). */
    private record FakeLog(long lastLsn, Map<Long, Long> epochs) implements LogView {
        @Override
        public long epochOf(long lsn) {
            return lsn == 0 ? 0 : epochs.getOrDefault(lsn, EPOCH);
        }

        @Override
        public long startLsn() {
            return 1;
        }

        @Override
        public long epoch() {
            return EPOCH;
        }

        @Override
        public LogRecord record(long lsn) {
            throw new UnsupportedOperationException("the progress tracker reads no records");
        }

        @Override
        public List<LogRecord> batch(long fromLsn) {
            throw new UnsupportedOperationException("the progress tracker reads no records");
        }
    }

    private static LeaderProgress majorityOfThree() {
        LeaderProgress progress = LeaderProgress.majority(A, EPOCH, () -> 2, node -> true);
        progress.track(B, 11);
        progress.track(C, 11);
        return progress;
    }

    /** A fail-stop primary with b and c in sync up to 10 that just assigned LSN 11 to a write. */
    private static LeaderProgress allInSyncOfThreeWritingEleven() {
        LeaderProgress progress = LeaderProgress.allInSync(A);
        progress.follow(B, 10, 10, 10);
        progress.follow(C, 10, 10, 10);
        progress.assigned(11);
        return progress;
    }

    @Test
    void aMajorityCommitsWhatTheLeaderAndOneFollowerLoggedDurably() {
        LeaderProgress progress = majorityOfThree();
        FakeLog log = new FakeLog(12, Map.of());

        progress.accepted(B, 12);

        assertThat(progress.commitPoint(12, 5, log)).isEqualTo(12);
        assertThat(progress.commitPoint(11, 5, log)).as("the leader's own log is durable up to 11").isEqualTo(11);
    }

    @Test
    void aRecordOfAnEarlierEpochDoesNotCommitByCountingEvenOnAMajority() {
        LeaderProgress progress = majorityOfThree();
        Map<Long, Long> epochs = new HashMap<>();
        epochs.put(10L, 3L);
        progress.accepted(B, 10);

        assertThat(progress.commitPoint(12, 5, new FakeLog(12, epochs))).as("LSN 10 is of epoch 3").isEqualTo(5);
        epochs.put(10L, EPOCH);
        assertThat(progress.commitPoint(12, 5, new FakeLog(12, epochs))).isEqualTo(10);
    }

    @Test
    void theCommitPointNeverGoesBackAndNeverPassesTheLogEnd() {
        LeaderProgress progress = majorityOfThree();
        progress.accepted(B, 20);

        assertThat(progress.commitPoint(20, 15, new FakeLog(12, Map.of()))).as("capped by the log end")
                .isEqualTo(15);
        assertThat(progress.commitPoint(3, 15, new FakeLog(20, Map.of()))).as("the majority has less").isEqualTo(15);
    }

    @Test
    void aReplicaThatDoesNotCountNeitherCommitsNorGivesALease() {
        Set<NodeId> voters = Set.of(A, B);
        LeaderProgress progress = LeaderProgress.majority(A, EPOCH, () -> 2, voters::contains);
        progress.track(B, 1);
        progress.track(C, 1);
        progress.accepted(C, 9);
        progress.contacted(C, 5 * SECOND, 5 * SECOND);

        assertThat(progress.commitPoint(9, 0, new FakeLog(9, Map.of()))).isZero();
        assertThat(progress.majoritySince(6 * SECOND)).isEqualTo(Long.MIN_VALUE);
        assertThat(progress.answeredWithin(6 * SECOND, SECOND)).as("only the leader").isEqualTo(1);

        progress.contacted(B, 4 * SECOND, 4 * SECOND);
        assertThat(progress.majoritySince(6 * SECOND)).as("b's answer to a message sent at 4 s").isEqualTo(4 * SECOND);
    }

    @Test
    void allInSyncCommitsOnlyWhatEveryInSyncFollowerAcknowledgedAndTheLeaderLogged() {
        LeaderProgress progress = allInSyncOfThreeWritingEleven();
        FakeLog log = new FakeLog(11, Map.of());

        progress.accepted(B, 11);
        assertThat(progress.commitPoint(11, 10, log)).as("c did not acknowledge 11").isEqualTo(10);
        assertThat(progress.awaiting(11)).containsExactly(C);

        progress.accepted(C, 11);
        assertThat(progress.commitPoint(10, 10, log)).as("the leader has not logged 11").isEqualTo(10);
        assertThat(progress.commitPoint(11, 10, log)).isEqualTo(11);
    }

    @Test
    void anExcludedFollowerNoLongerHoldsBackACommit() {
        LeaderProgress progress = allInSyncOfThreeWritingEleven();
        progress.accepted(B, 11);

        assertThat(progress.forget(C)).isTrue();

        assertThat(progress.commitPoint(11, 10, new FakeLog(11, Map.of()))).isEqualTo(11);
        assertThat(progress.forget(C)).as("forgotten already").isFalse();
    }

    @Test
    void aNewWriteWaitsForAFollowerEvenIfItClaimedMoreThanTheLeaderHad() {
        LeaderProgress progress = LeaderProgress.allInSync(A);
        progress.follow(B, 10, 10, 10);
        progress.accepted(B, 15);   // its log is longer than this leader's

        progress.assigned(11);

        assertThat(progress.awaiting(11)).containsExactly(B);
    }

    @Test
    void aFollowerThatJoinedDoesNotHoldBackWritesLoggedBeforeItJoined() {
        LeaderProgress progress = LeaderProgress.allInSync(A);

        progress.follow(B, 7, 12, 12);   // its log matches up to 7 and it received everything up to 12

        assertThat(progress.awaiting(12)).isEmpty();
        assertThat(progress.awaiting(13)).containsExactly(B);
        assertThat(progress.takesNext(B, 13)).isTrue();
    }

    @Test
    void anAcceptedFollowerStopsProbingAndIsCaughtUpSeveralBatchesAtATime() {
        LeaderProgress progress = majorityOfThree();
        assertThat(progress.catchesUp(B, 30)).as("probing: nothing is in flight yet").isTrue();
        progress.sent(B, 11, 11, 30, 0);
        assertThat(progress.catchesUp(B, 30)).as("probing: one message at a time").isFalse();

        progress.answered(B);
        progress.accepted(B, 11);

        assertThat(progress.next(B)).isEqualTo(12);
        for (int i = 0; i < LeaderProgress.CATCH_UP_IN_FLIGHT; i++) {
            assertThat(progress.catchesUp(B, 30)).isTrue();
            progress.sent(B, 12 + i, 12 + i, 30, 0);
        }
        assertThat(progress.catchesUp(B, 30)).as("the in-flight limit").isFalse();
        assertThat(progress.takesNext(B, 15)).isTrue();
    }

    @Test
    void aGapResendsFromTheLogEndTheFollowerNames() {
        LeaderProgress progress = majorityOfThree();
        progress.accepted(B, 11);

        progress.gap(B, 8);

        assertThat(progress.match(B)).as("its tail was lost").isEqualTo(8);
        assertThat(progress.next(B)).isEqualTo(9);
        assertThat(progress.takesNext(B, 9)).as("probing").isFalse();
    }

    @Test
    void aMismatchProbesFromWhatMatchesAndALostMessageFromTheMatch() {
        LeaderProgress progress = majorityOfThree();
        progress.accepted(B, 5);

        progress.mismatch(B, 7);
        assertThat(progress.next(B)).isEqualTo(8);
        assertThat(progress.match(B)).as("a mismatch does not lower the match").isEqualTo(5);

        progress.lost(B);
        assertThat(progress.next(B)).isEqualTo(6);
    }

    @Test
    void aRefusalIsNewsOnceAndAFollowerThatRefusesTakesNoRecords() {
        LeaderProgress progress = majorityOfThree();
        progress.contacted(B, SECOND, SECOND);

        assertThat(progress.refused(B, "installing a snapshot")).isTrue();
        assertThat(progress.refused(B, "installing a snapshot")).isFalse();
        assertThat(progress.takesRecords(B, SECOND, SECOND)).isFalse();
        assertThat(progress.heardFrom(B, SECOND, SECOND)).isTrue();

        progress.accepted(B, 11);
        assertThat(progress.takesRecords(B, SECOND, SECOND)).isTrue();
    }

    @Test
    void contactCountsOnlyTheLatestMessageAnsweredWithinTheWindow() {
        LeaderProgress progress = majorityOfThree();
        progress.contacted(B, 5 * SECOND, 5 * SECOND);
        progress.contacted(B, 3 * SECOND, 5 * SECOND + SECOND / 2);   // a late answer to an older message

        assertThat(progress.heardFrom(B, 6 * SECOND, 2 * SECOND)).isTrue();
        assertThat(progress.heardFrom(B, 8 * SECOND, 2 * SECOND)).isFalse();
        assertThat(progress.heardFrom(C, 6 * SECOND, 2 * SECOND)).as("never heard").isFalse();
        assertThat(progress.heardFrom(A, 6 * SECOND, 2 * SECOND)).as("the leader itself").isTrue();
        assertThat(progress.answeredWithin(6 * SECOND, 2 * SECOND)).isEqualTo(2);
        assertThat(progress.majoritySince(6 * SECOND)).as("reads: the latest message answered").isEqualTo(5 * SECOND);
        assertThat(progress.majorityAnsweredAt(6 * SECOND)).as("liveness: the latest answer")
                .isEqualTo(5 * SECOND + SECOND / 2);
    }

    @Test
    void aHeartbeatIsDueAfterTheIntervalUnlessAProbeIsOut() {
        LeaderProgress progress = majorityOfThree();
        progress.sent(B, 11, 10, 10, 0);

        assertThat(progress.heartbeatDue(B, SECOND, SECOND / 4)).as("a probe is out").isFalse();
        progress.answered(B);
        assertThat(progress.heartbeatDue(B, SECOND, SECOND / 4)).isTrue();
        assertThat(progress.heartbeatDue(B, SECOND / 8, SECOND / 4)).isFalse();
    }

    @Test
    void aMessageNamesTheRecordBeforeItsEntriesForTheLogMatchingCheck() {
        LeaderProgress majority = majorityOfThree();
        assertThat(majority.sent(B, 11, 13, 13, 0)).isEqualTo(10);
        assertThat(majority.next(B)).isEqualTo(14);
        assertThat(majority.sent(B, 14, 13, 13, 0)).as("a heartbeat").isEqualTo(13);

        LeaderProgress allInSync = LeaderProgress.allInSync(A);
        allInSync.follow(B, 10, 10, 20);
        assertThat(allInSync.sent(B, 21, 20, 12, 0)).as("a heartbeat: no further than the log end").isEqualTo(12);
    }

    @Test
    void anUntrackedFollowerIsAnError() {
        assertThatThrownBy(() -> majorityOfThree().next(NodeId.of("x")))
                .hasMessage("node: x (expected: a tracked follower)");
        assertThat(majorityOfThree().match(NodeId.of("x"))).isEqualTo(-1);
        assertThat(majorityOfThree().logged(NodeId.of("x"), 3)).isFalse();
    }
}
