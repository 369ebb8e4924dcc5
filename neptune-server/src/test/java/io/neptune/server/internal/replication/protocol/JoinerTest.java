package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Ready.AdoptEpoch;
import io.neptune.server.internal.replication.protocol.Ready.AppendBatch;
import io.neptune.server.internal.replication.protocol.Ready.Apply;
import io.neptune.server.internal.replication.protocol.Ready.ApplyToResume;
import io.neptune.server.internal.replication.protocol.Ready.AskJoin;
import io.neptune.server.internal.replication.protocol.Ready.Debug;
import io.neptune.server.internal.replication.protocol.Ready.Diverged;
import io.neptune.server.internal.replication.protocol.Ready.Effect;
import io.neptune.server.internal.replication.protocol.Ready.FollowPrimary;
import io.neptune.server.internal.replication.protocol.Ready.Info;
import io.neptune.server.internal.replication.protocol.Ready.JoinAgain;
import io.neptune.server.internal.replication.protocol.Ready.JoinUnderWay;
import io.neptune.server.internal.replication.protocol.Ready.Recover;
import io.neptune.server.internal.replication.protocol.Ready.Resume;
import io.neptune.server.internal.replication.protocol.Ready.Truncate;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A recovering replica's join, stepped by hand: the test is the driver, keeping the replica's log
 * and phase as the effects say and answering for the primary. No threads, no disk, no waits.
 */
class JoinerTest {
    private static final NodeId P = NodeId.of("p");

    /** The joining replica: its log, epoch, what it applied, and the attempt its phase holds. */
    private static final class FakeReplica implements Joiner.View {
        final List<LogRecord> records = new ArrayList<>();
        long epoch = 1;
        long applied;
        Joiner.@Nullable Attempt attempt;
        boolean resumed;
        final List<AskJoin> asked = new ArrayList<>();

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public long lastLsn() {
            return records.size();
        }

        @Override
        public long lastEpoch() {
            return records.isEmpty() ? 0 : records.get(records.size() - 1).epoch();
        }

        @Override
        public long startLsn() {
            return 1;
        }

        @Override
        public long applied() {
            return applied;
        }

        @Override
        public long epochOf(long lsn) {
            return lsn == 0 ? 0 : records.get((int) lsn - 1).epoch();
        }

        @Override
        public String originOf(long lsn) {
            return lsn == 0 ? "" : records.get((int) lsn - 1).origin();
        }

        @Override
        public long epochStart(long epoch, long unknown) {
            return records.stream().filter(r -> r.epoch() == epoch).mapToLong(LogRecord::lsn).min().orElse(unknown);
        }
    }

    private final Joiner joiner = new Joiner();
    private final FakeReplica replica = new FakeReplica();

    private static LogRecord record(long lsn, long epoch, String origin) {
        return new LogRecord(lsn, epoch, RecordKind.WRITE, new RequestId(7, lsn), origin, 0, "put", new byte[] {1});
    }

    private static List<LogRecord> records(long from, long to, long epoch, String origin) {
        List<LogRecord> records = new ArrayList<>();
        for (long lsn = from; lsn <= to; lsn++) {
            records.add(record(lsn, epoch, origin));
        }
        return records;
    }

    /** Carries {@code ready} out on the fake replica as the driver would, and returns it. */
    private Ready carryOut(Ready ready) {
        for (Effect effect : ready.effects()) {
            if (effect instanceof JoinUnderWay underWay) {
                replica.attempt = underWay.attempt();
            } else if (effect instanceof AskJoin ask) {
                replica.asked.add(ask);
            } else if (effect instanceof AdoptEpoch newer) {
                replica.epoch = newer.epoch();
            } else if (effect instanceof Truncate truncate) {
                replica.records.subList((int) truncate.afterLsn(), replica.records.size()).clear();
            } else if (effect instanceof AppendBatch batch) {
                replica.records.addAll(batch.records());
            } else if (effect instanceof Recover) {
                replica.attempt = null;
            } else if (effect instanceof JoinAgain again) {
                carryOut(joiner.start(replica.attempt, again.target(), replica));
            } else if (effect instanceof Resume) {
                replica.resumed = true;
            }
        }
        return ready;
    }

    /** Starts a join with the primary and returns the number of its attempt. */
    private long started() {
        carryOut(joiner.start(replica.attempt, P, replica));
        return requireAttempt().number();
    }

    private Joiner.Attempt requireAttempt() {
        assertThat(replica.attempt).as("a join under way").isNotNull();
        return replica.attempt;
    }

    /** The primary's acceptance at epoch 2 of a log that is its own up to {@code keep} (its record there by p). */
    private static Joiner.Reply accepted(long keep, long keepEpoch, List<LogRecord> records, boolean joined,
            long commitLsn) {
        return new Joiner.Reply(2, keep, keepEpoch, "p", records, joined, commitLsn);
    }

    @Test
    void aReplicaThatIsUpToDateIsCountedInSyncAtOnceAndResumesOnceItAppliedWhatThePrimaryCommitted() {
        replica.epoch = 2;
        replica.records.addAll(records(1, 3, 2, "p"));
        long attempt = started();
        assertThat(replica.asked).containsExactly(new AskJoin(P, 3, 2, attempt));

        Ready reply = carryOut(joiner.replied(replica.attempt, attempt, accepted(3, 2, List.of(), true, 3), replica));
        assertThat(reply.effects()).containsExactly(new FollowPrimary(P, 3),
                new JoinUnderWay(new Joiner.Attempt(attempt, P, true, false)), new AppendBatch(List.of(), attempt));
        assertThat(requireAttempt().joinedTo()).as("takes the primary's replicate from now on").isEqualTo(P);

        assertThat(joiner.logged(replica.attempt, attempt, 3).effects()).containsExactly(new ApplyToResume(3, attempt));
        assertThat(carryOut(joiner.applied(replica.attempt, attempt, true, 0)).effects()).containsExactly(new Resume());
        assertThat(replica.resumed).isTrue();
    }

    @Test
    void aReplicaFarBehindFetchesBatchAfterBatchAndAppliesEachWhileTheNextTravels() {
        List<LogRecord> primary = records(1, 5, 1, "p");
        long first = started();
        assertThat(replica.asked.get(0)).isEqualTo(new AskJoin(P, 0, 0, first));

        carryOut(joiner.replied(replica.attempt, first, accepted(0, 0, primary.subList(0, 2), false, 5), replica));
        Ready afterFirst = carryOut(joiner.logged(replica.attempt, first, 5));
        assertThat(afterFirst.effects().get(0)).as("not in sync yet").isEqualTo(new Recover(null));
        assertThat(afterFirst.effects()).contains(new JoinAgain(P), new Apply(5));
        long second = requireAttempt().number();
        assertThat(second).isGreaterThan(first);
        assertThat(replica.asked.get(1)).as("asks from its new log end").isEqualTo(new AskJoin(P, 2, 1, second));

        carryOut(joiner.replied(replica.attempt, second, accepted(2, 1, primary.subList(2, 4), false, 5), replica));
        carryOut(joiner.logged(replica.attempt, second, 5));
        long third = requireAttempt().number();
        assertThat(replica.asked.get(2)).isEqualTo(new AskJoin(P, 4, 1, third));

        carryOut(joiner.replied(replica.attempt, third, accepted(4, 1, primary.subList(4, 5), true, 5), replica));
        assertThat(carryOut(joiner.logged(replica.attempt, third, 5)).effects())
                .containsExactly(new ApplyToResume(5, third));
        carryOut(joiner.applied(replica.attempt, third, true, 0));

        assertThat(replica.records).isEqualTo(primary);
        assertThat(replica.resumed).isTrue();
    }

    @Test
    void recordsOfADeadPrimaryUnderAReusedEpochAreTruncatedFromTheirRunsStartAndTheReplicaJoinsAgain() {
        replica.records.addAll(records(1, 2, 1, "p"));
        replica.records.addAll(records(3, 4, 2, "dead")); // epoch 2 by a primary that died before anyone saw it
        replica.epoch = 2;
        replica.applied = 2;
        long attempt = started();

        Ready reply = carryOut(joiner.replied(replica.attempt, attempt, accepted(4, 2, List.of(), false, 2), replica));

        assertThat(reply.effects()).hasSize(3);
        assertThat(reply.effects().get(0)).isInstanceOf(Warn.class);
        assertThat(((Warn) reply.effects().get(0)).message()).contains("records 3..4", "truncating them");
        assertThat(reply.effects().subList(1, 3)).containsExactly(new Truncate(2), new Recover(null));
        assertThat(replica.records).isEqualTo(records(1, 2, 1, "p"));
    }

    @Test
    void anUncommittedTailThePrimaryLacksIsTruncatedAndThePrimarysRecordsLoggedInItsPlace() {
        replica.records.addAll(records(1, 4, 1, "p"));
        replica.applied = 2;
        long attempt = started();
        List<LogRecord> primarys = records(3, 3, 2, "q");

        Ready reply = carryOut(joiner.replied(replica.attempt, attempt, new Joiner.Reply(2, 2, 1, "p", primarys, true,
                3), replica));

        assertThat(reply.effects().get(0)).isEqualTo(new AdoptEpoch(2));
        assertThat(reply.effects().get(1)).isInstanceOf(Info.class);
        assertThat(reply.effects().subList(2, reply.effects().size())).containsExactly(new Truncate(2),
                new FollowPrimary(P, 3), new JoinUnderWay(new Joiner.Attempt(attempt, P, true, false)),
                new AppendBatch(primarys, attempt));
        assertThat(replica.records.get(2)).isEqualTo(primarys.get(0));
        assertThat(replica.epoch).isEqualTo(2);
    }

    @Test
    void aReplicaThatAppliedWritesThePrimaryLacksDivergedAndTruncatesNothing() {
        replica.records.addAll(records(1, 4, 1, "p"));
        replica.applied = 4;
        long attempt = started();

        Ready reply = carryOut(joiner.replied(replica.attempt, attempt, accepted(2, 1, List.of(), false, 2), replica));

        assertThat(reply.effects()).hasSize(3);
        assertThat(reply.effects().get(1)).isInstanceOf(Diverged.class);
        assertThat(((Diverged) reply.effects().get(1)).message()).startsWith("[NEP-REPL-001] applied writes up to 4");
        assertThat(reply.effects().get(2)).isEqualTo(new Recover(null));
        assertThat(replica.records).hasSize(4);
    }

    @Test
    void aReplyOfAnEarlierAttemptIsIgnored() {
        long first = started();
        carryOut(joiner.failed(replica.attempt, first, "timed out"));
        assertThat(replica.attempt).isNull();
        assertThat(joiner.replied(null, first, accepted(0, 0, List.of(), true, 0), replica).isEmpty())
                .as("not joining at all").isTrue();

        long second = started();
        Ready late = joiner.replied(replica.attempt, first, accepted(0, 0, records(1, 1, 1, "p"), true, 1), replica);

        assertThat(late.isEmpty()).isTrue();
        assertThat(joiner.logged(replica.attempt, first, 1).isEmpty()).isTrue();
        assertThat(joiner.applied(replica.attempt, first, true, 0).isEmpty()).isTrue();
        assertThat(requireAttempt().number()).isEqualTo(second);
    }

    @Test
    void aJoinUnderWayIsNotStartedAgain() {
        long attempt = started();

        assertThat(joiner.start(replica.attempt, P, replica).isEmpty()).isTrue();
        assertThat(requireAttempt().number()).isEqualTo(attempt);
    }

    @Test
    void aRefusedOrFailedCallEndsTheAttemptAndSaysWhy() {
        long attempt = started();

        Ready failed = carryOut(joiner.failed(replica.attempt, attempt, "refused: install a snapshot"));

        assertThat(failed.effects()).hasSize(2);
        assertThat(((Debug) failed.effects().get(0)).message()).contains("install a snapshot");
        assertThat(failed.effects().get(1)).isEqualTo(new Recover(null));
    }

    @Test
    void aBatchThatFailedToLogEndsTheJoinWithoutAnotherAttemptButKeepsThePrimarysReplicate() {
        long attempt = started();
        carryOut(joiner.replied(replica.attempt, attempt, accepted(0, 0, records(1, 2, 1, "p"), true, 1), replica));

        Ready failed = carryOut(joiner.logFailed(replica.attempt, attempt, 1, "disk full"));

        assertThat(failed.effects()).hasSize(3);
        assertThat(((Debug) failed.effects().get(0)).message()).contains("disk full");
        assertThat(failed.effects().subList(1, 3)).containsExactly(new Recover(P), new Apply(1));
        assertThat(replica.asked).as("no next batch").hasSize(1);
    }

    @Test
    void aReplicaDemotedWhileJoiningRecoversWithoutFetchingTheNextBatch() {
        long attempt = started();
        carryOut(joiner.replied(replica.attempt, attempt, accepted(0, 0, records(1, 1, 1, "p"), false, 1), replica));
        replica.attempt = requireAttempt().exclude();

        assertThat(carryOut(joiner.logged(replica.attempt, attempt, 1)).effects()).containsExactly(new Recover(null),
                new Apply(1));
        assertThat(replica.asked).hasSize(1);
    }

    @Test
    void aReplicaDemotedBeforeTheReplyArrivedLogsNothingOfIt() {
        long attempt = started();
        replica.attempt = requireAttempt().exclude();

        assertThat(joiner.replied(replica.attempt, attempt, accepted(0, 0, records(1, 1, 1, "p"), true, 1), replica)
                .effects()).containsExactly(new Recover(null));
    }

    @Test
    void aJoinedReplicaWhoseApplyingFailsInStorageStaysRecoveringWithThePrimarysReplicate() {
        long attempt = started();
        carryOut(joiner.replied(replica.attempt, attempt, accepted(0, 0, records(1, 1, 1, "p"), true, 1), replica));

        Ready applied = carryOut(joiner.applied(replica.attempt, attempt, false, 1));

        assertThat(applied.effects().get(0)).isEqualTo(new Recover(P));
        assertThat(((Debug) applied.effects().get(1)).message()).contains("LSN 1 failed in storage");
        assertThat(replica.resumed).isFalse();
    }
}
