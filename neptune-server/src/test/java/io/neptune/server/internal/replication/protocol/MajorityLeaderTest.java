package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Ready.Append;
import io.neptune.server.internal.replication.protocol.Ready.Apply;
import io.neptune.server.internal.replication.protocol.Ready.Effect;
import io.neptune.server.internal.replication.protocol.Ready.NewerEpoch;
import io.neptune.server.internal.replication.protocol.Ready.ReadIndexAnswer;
import io.neptune.server.internal.replication.protocol.Ready.Send;
import io.neptune.server.internal.replication.protocol.Ready.SendSnapshot;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code majority}-mode primary's decisions, stepped by hand: each test feeds inputs and reads the
 * {@link Ready} that comes out. No threads, no disk, no clock; the "driver" here is the test, which
 * appends what the leader asks it to and answers its messages as a follower would.
 */
class MajorityLeaderTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final long EPOCH = 3;
    private static final long MS = 1_000_000L;

    /** An in-memory log of records of epoch 2 (before this primary) and later ones, starting at {@link #start}. */
    private static final class ListLog implements LogView {
        final List<LogRecord> records = new ArrayList<>();
        long start = 1;

        @Override
        public long lastLsn() {
            return start - 1 + records.size();
        }

        @Override
        public long epochOf(long lsn) {
            return lsn < start ? 0 : records.get((int) (lsn - start)).epoch();
        }

        @Override
        public long startLsn() {
            return start;
        }

        @Override
        public long epoch() {
            return EPOCH;
        }

        @Override
        public LogRecord record(long lsn) {
            return records.get((int) (lsn - start));
        }

        @Override
        public List<LogRecord> batch(long fromLsn) {
            return List.copyOf(records.subList((int) (fromLsn - start), records.size()));
        }
    }

    private final ListLog log = new ListLog();
    private MajorityLeader leader;
    private long now = 1_000 * MS;

    @BeforeEach
    void threeReplicasWithTwoRecordsOfAnEarlierEpoch() {
        log.records.add(write(1, 2));
        log.records.add(write(2, 2));
        LeaderProgress progress = LeaderProgress.majority(A, EPOCH, () -> 2, node -> true);
        leader = new MajorityLeader(A, EPOCH, progress, log, 2);
        leader.votedBy(Set.of(B), now, now);
    }

    private static LogRecord write(long lsn, long epoch) {
        return new LogRecord(lsn, epoch, RecordKind.WRITE, new RequestId(1, lsn), "a", 0, "put", new byte[] {1});
    }

    /** Carries out what the leader decided as its driver would: appends are logged (not yet durable). */
    private Ready carriedOut(Ready ready) {
        for (Effect effect : ready.effects()) {
            if (effect instanceof Append append) {
                log.records.add(append.record());
            }
        }
        return ready;
    }

    private static List<Send> sends(Ready ready, NodeId to) {
        return ready.effects().stream().filter(e -> e instanceof Send s && s.to().equals(to)).map(Send.class::cast).toList();
    }

    private Local here(long durable, long applied) {
        return new Local(now, durable, applied);
    }

    @Test
    void aNewPrimaryLogsItsOpeningNoOpBeforeSendingItAndSendsItInTheFirstMessageToEachFollower() {
        Ready ready = carriedOut(leader.start(Set.of(C), now));

        assertThat(ready.effects().get(0)).isInstanceOfSatisfying(Append.class,
                a -> assertThat(a.record().kind()).isEqualTo(RecordKind.NOOP));
        for (NodeId follower : List.of(B, C)) {
            List<Send> sent = sends(ready, follower);
            assertThat(sent).hasSize(1);
            assertThat(sent.get(0).records()).extracting(LogRecord::lsn).containsExactly(3L);
            assertThat(sent.get(0).prev()).isEqualTo(2);
        }
    }

    @Test
    void aWriteCommitsOnceAMajorityLoggedItDurablyAndIsAppliedBeforeTheHeartbeatsThatAnnounceIt() {
        carriedOut(leader.start(Set.of(C), now));
        leader.acked(B, now, new Ack(true, 3, EPOCH, ""), here(3, 2));
        Ready write = carriedOut(leader.append(new LogRecord(4, EPOCH, RecordKind.WRITE, new RequestId(9, 9), "a", 0,
                "put", new byte[] {2}), now));
        assertThat(sends(write, B)).singleElement().satisfies(s -> assertThat(s.records()).hasSize(1));

        Ready notYet = leader.advance(here(4, 3));
        assertThat(leader.commitLsn()).as("only this replica has LSN 4").isEqualTo(3);
        assertThat(notYet.effects()).noneMatch(e -> e instanceof Apply);

        Ready committed = leader.acked(B, now, new Ack(true, 4, EPOCH, ""), here(4, 3));

        assertThat(leader.commitLsn()).isEqualTo(4);
        assertThat(committed.effects().get(0)).isEqualTo(new Apply(4));
    }

    @Test
    void aRecordOfAnEarlierEpochDoesNotCommitUntilOneOfThisEpochDoes() {
        Ready ready = leader.advance(here(2, 2));

        assertThat(leader.committedOwnEpoch()).isFalse();
        assertThat(ready.effects()).noneMatch(e -> e instanceof Apply);
    }

    @Test
    void anAnswerWithANewerEpochMakesTheReplicaAdoptItAndDecidesNothingElse() {
        carriedOut(leader.start(Set.of(C), now));

        Ready ready = leader.acked(C, now, new Ack(false, 9, EPOCH + 1, "stale epoch"), here(3, 2));

        assertThat(ready.effects()).containsExactly(new NewerEpoch(EPOCH + 1, C));
    }

    @Test
    void aRefusalIsWarnedOnceNotAtEveryHeartbeat() {
        carriedOut(leader.start(Set.of(C), now));

        Ready first = leader.acked(C, now, new Ack(false, 2, EPOCH, "diverged"), here(3, 2));
        Ready second = leader.acked(C, now, new Ack(false, 2, EPOCH, "diverged"), here(3, 2));

        assertThat(first.effects()).singleElement().isInstanceOf(Warn.class);
        assertThat(second.effects()).isEmpty();
    }

    @Test
    void aFollowerThatNeedsRecordsBelowTheLogStartIsToldToInstallASnapshot() {
        log.start = 2; // a checkpoint dropped LSN 1
        log.records.remove(0);
        carriedOut(leader.start(Set.of(C), now));

        Ready ready = leader.acked(C, now, new Ack(false, 0, EPOCH, "gap"), here(3, 2));

        assertThat(ready.effects()).contains(new SendSnapshot(C, now));
    }

    @Test
    void aReadIndexIsAnsweredOnceAMajorityAnsweredAMessageSentAfterItArrived() {
        carriedOut(leader.start(Set.of(C), now));
        now += 10 * MS;
        long id = leader.readIndex(now);

        Ready before = leader.acked(B, now - MS, new Ack(true, 3, EPOCH, ""), here(3, 2));
        assertThat(before.effects()).noneMatch(e -> e instanceof ReadIndexAnswer);

        Ready after = leader.acked(B, now + MS, new Ack(true, 3, EPOCH, ""), here(3, 2));
        assertThat(after.effects()).contains(new ReadIndexAnswer(id, true, 3));
    }

    @Test
    void aReadIndexNoMajorityAnswersWithinASecondIsRefused() {
        long id = leader.readIndex(now);
        now += MajorityLeader.READ_INDEX_TIMEOUT_NANOS + MS;

        assertThat(leader.tick(now).effects()).contains(new ReadIndexAnswer(id, false, 0));
        assertThat(leader.abandon().effects()).as("answered once").isEmpty();
    }

    @Test
    void anIdleFollowerGetsAHeartbeatWithTheCommitPointAfterAQuarterSecond() {
        carriedOut(leader.start(Set.of(C), now));
        leader.acked(B, now, new Ack(true, 3, EPOCH, ""), here(3, 2));
        leader.acked(C, now, new Ack(true, 3, EPOCH, ""), here(3, 3));

        assertThat(sends(leader.tick(now + MS), B)).as("just sent").isEmpty();
        now += MajorityLeader.HEARTBEAT_NANOS + MS;
        List<Send> heartbeats = sends(leader.tick(now), B);

        assertThat(heartbeats).singleElement().satisfies(s -> {
            assertThat(s.records()).isEmpty();
            assertThat(s.commitLsn()).isEqualTo(3);
        });
    }

    @Test
    void aNewPrimaryHoldsItsMajorityForATimeoutAfterTheVotesThatElectedItWereSent() {
        long timeout = 300 * MS;

        MajorityLease held = leader.lease(now + timeout - 1, timeout);
        MajorityLease lost = leader.lease(now + timeout, timeout);

        assertThat(held).isEqualTo(new MajorityLease(now, 2, now + timeout - 1, timeout));
        assertThat(held.holds()).as("b's vote counts as contact").isTrue();
        assertThat(lost.holds()).isFalse();
        assertThat(lost.heardFrom()).as("only itself").isEqualTo(1);
    }

    /**
     * Seen on a loaded 2-core machine (BrowserIT, 384 replicas starting in one JVM): votes took most of
     * a timeout to come back, and a primary that counted its lease from when it asked for them stepped
     * down before its first heartbeat could be answered; the next election did the same, for 45 s.
     * Stepping down is liveness, so it counts answers when they arrive; reads keep the send times.
     */
    @Test
    void aPrimaryWhoseVotesAndAnswersComeLateHoldsItsMajorityWhileAnswersKeepArriving() {
        long timeout = 1_000 * MS;
        long asked = now;
        MajorityLeader late = new MajorityLeader(A, EPOCH, LeaderProgress.majority(A, EPOCH, () -> 2, node -> true),
                log, 2);
        long elected = asked + 900 * MS;
        late.votedBy(Set.of(B), asked, elected);
        carriedOut(late.start(Set.of(C), elected));

        assertThat(late.lease(asked + timeout + 100 * MS, timeout).stepDown(false))
                .as("a timeout after the votes were asked for, not after they came").isNull();
        long answered = elected + 800 * MS;
        late.acked(B, elected, new Ack(true, 3, EPOCH, ""), new Local(answered, 3, 2));
        assertThat(late.lease(answered + timeout - 1, timeout).stepDown(false)).as("b answered late, but answered").isNull();
        assertThat(late.lease(answered + timeout, timeout).stepDown(false))
                .isEqualTo("no majority answered within 1000 ms");
        assertThat(late.majoritySince(answered)).as("reads count from when the answered message was sent")
                .isEqualTo(elected);
    }
}
