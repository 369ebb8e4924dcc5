package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Ready.Announce;
import io.neptune.server.internal.replication.protocol.Ready.Append;
import io.neptune.server.internal.replication.protocol.Ready.ApplyReady;
import io.neptune.server.internal.replication.protocol.Ready.Demote;
import io.neptune.server.internal.replication.protocol.Ready.Effect;
import io.neptune.server.internal.replication.protocol.Ready.Send;
import io.neptune.server.internal.replication.protocol.Ready.StepDown;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A fail-stop primary's decisions, stepped by hand: the test is the driver, logging what the
 * leader appends and answering for its secondaries. No threads, no disk, no clock.
 */
class InSyncLeaderTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final long EPOCH = 5;
    private static final long MS = 1_000_000L;
    private static final long ACK_TIMEOUT = 500 * MS;
    private static final long PAUSE = 1_000 * MS;

    private static final class ListLog implements LogView {
        final List<LogRecord> records = new ArrayList<>();

        @Override
        public long lastLsn() {
            return records.size();
        }

        @Override
        public long epochOf(long lsn) {
            return lsn == 0 ? 0 : records.get((int) lsn - 1).epoch();
        }

        @Override
        public long epoch() {
            return EPOCH;
        }

        @Override
        public LogRecord record(long lsn) {
            return records.get((int) lsn - 1);
        }

        @Override
        public long startLsn() {
            return 1;
        }

        @Override
        public List<LogRecord> batch(long fromLsn) {
            return List.copyOf(records.subList((int) fromLsn - 1, records.size()));
        }
    }

    private final ListLog log = new ListLog();
    private final InSyncLeader leader = new InSyncLeader(A, log, ACK_TIMEOUT, PAUSE);
    private long now = 10_000 * MS;

    @BeforeEach
    void aPrimaryWithTwoSecondariesInSyncAtTwo() {
        log.records.add(write(1));
        log.records.add(write(2));
        Map<NodeId, Long> logEnds = new LinkedHashMap<>();
        logEnds.put(B, 2L);
        logEnds.put(C, 2L);
        leader.lead(logEnds, Set.of(), here(2));
        leader.catchUp(here(2));
        leader.acked(B, new Ack(true, 2, EPOCH, ""), here(2));
        leader.acked(C, new Ack(true, 2, EPOCH, ""), here(2));
        leader.ticked(now);
    }

    private static LogRecord write(long lsn) {
        return new LogRecord(lsn, EPOCH, RecordKind.WRITE, new RequestId(7, lsn), "a", 0, "put", new byte[] {1});
    }

    private Local here(long applied) {
        return new Local(now, log.lastLsn(), applied);
    }

    /** Writes LSN {@code lsn} as the driver would: logs what the leader appends. */
    private Ready written(long lsn) {
        Ready ready = leader.write(write(lsn), here(lsn - 1));
        for (Effect effect : ready.effects()) {
            if (effect instanceof Append append) {
                log.records.add(append.record());
            }
        }
        return ready;
    }

    @Test
    void aWriteIsLoggedBeforeItIsSentToEverySecondaryInSync() {
        Ready ready = written(3);

        assertThat(ready.effects()).hasSize(3);
        assertThat(ready.effects().get(0)).isInstanceOf(Append.class);
        assertThat(ready.effects().subList(1, 3).stream().map(e -> ((Send) e).to()).toList())
                .as("every secondary, in a deterministic order").isEqualTo(leader.secondaries());
    }

    @Test
    void aWriteCommitsOnlyOnceEverySecondaryInSyncLoggedIt() {
        written(3);
        leader.logged(3);
        assertThat(leader.committable(here(2))).isEqualTo(-1);

        leader.acked(B, new Ack(true, 3, EPOCH, ""), here(2));
        assertThat(leader.committable(here(2))).as("c has not logged it").isEqualTo(-1);

        Ready ready = leader.acked(C, new Ack(true, 3, EPOCH, ""), here(2));
        assertThat(ready.effects()).contains(new ApplyReady());
        assertThat(leader.committable(here(2))).isEqualTo(3);
        assertThat(leader.committed(3).lsn()).isEqualTo(3);
        assertThat(leader.idle()).isTrue();
    }

    @Test
    void aSecondaryThatLeavesAWriteUnacknowledgedForAnAckTimeoutIsExcludedAndDemoted() {
        written(3);
        leader.acked(B, new Ack(true, 3, EPOCH, ""), here(2));
        now += ACK_TIMEOUT;
        leader.ticked(now);

        Ready ready = leader.tick(here(2));

        assertThat(ready.effects()).contains(new Demote(C)).doesNotContain(new Demote(B));
        assertThat(leader.secondaries()).containsExactly(B);
        assertThat(ready.effects()).as("the write no longer waits for c").contains(new ApplyReady());
    }

    @Test
    void rightAfterAPauseNobodyIsExcludedAndWhatWasMissedIsResent() {
        written(3);
        now += 10 * PAUSE; // nothing ran: the process was stopped

        Ready woke = leader.ticked(now);
        Ready tick = leader.tick(here(2));

        assertThat(woke.effects()).singleElement().isInstanceOf(Warn.class);
        assertThat(tick.effects()).noneMatch(e -> e instanceof Demote);
        assertThat(tick.effects()).filteredOn(e -> e instanceof Send).hasSize(2);
        assertThat(leader.secondaries()).containsExactlyInAnyOrder(B, C);
    }

    @Test
    void aFailedCallExcludesTheSecondaryButNotWithinAnAckTimeoutOfAPause() {
        Ready lost = leader.lost(B, "connection refused", here(2));

        assertThat(lost.effects()).contains(new Warn("secondary b excluded: unreachable: connection refused"),
                new Demote(B));
        now += 10 * PAUSE;
        Ready afterPause = leader.lost(C, "timed out", here(2));
        assertThat(afterPause.effects()).noneMatch(e -> e instanceof Demote);
        assertThat(leader.secondaries()).containsExactly(C);
    }

    @Test
    void aSecondaryAtANewerEpochMakesThePrimaryStepDown() {
        Ready ready = leader.acked(B, new Ack(false, 2, EPOCH + 1, "stale epoch"), here(2));

        assertThat(ready.effects()).containsExactly(new StepDown("b is at epoch " + (EPOCH + 1)));
    }

    @Test
    void aGapIsFilledFromWhereTheSecondarysLogStopsMatching() {
        written(3);
        written(4);

        Ready ready = leader.acked(B, new Ack(false, 2, EPOCH, "gap"), here(2));

        Send resend = (Send) ready.effects().get(0);
        assertThat(resend.prev()).isEqualTo(2);
        assertThat(resend.records()).extracting(LogRecord::lsn).containsExactly(3L, 4L);
    }

    @Test
    void aNewPrimarysUnappliedTailCommitsLikeNewWrites() {
        InSyncLeader next = new InSyncLeader(B, log, ACK_TIMEOUT, PAUSE);
        next.lead(Map.of(C, 1L), Set.of(), new Local(now, 2, 0));

        assertThat(next.idle()).isFalse();
        assertThat(next.committable(new Local(now, 2, 0))).as("c lacks LSN 2, but has 1").isEqualTo(1);
        next.committed(1);
        assertThat(next.committable(new Local(now, 2, 1))).isEqualTo(-1);
        next.excludeAbsent(Set.of(B), new Local(now, 2, 1));
        assertThat(next.committable(new Local(now, 2, 1))).as("c left the yellow page").isEqualTo(2);
    }

    @Test
    void aNewPrimaryIsHeldOnlyOnceEverySecondaryAndEveryReplicaItToldAnsweredAtItsEpoch() {
        InSyncLeader next = new InSyncLeader(B, log, ACK_TIMEOUT, PAUSE);
        next.lead(Map.of(C, 2L), Set.of(A), new Local(now, 2, 2));
        Ready sent = next.catchUp(new Local(now, 2, 2));

        assertThat(sent.effects()).filteredOn(Send.class::isInstance).extracting(e -> ((Send) e).to())
                .as("the secondary is caught up, the recovering replica told the epoch").containsExactly(C, A);
        assertThat(next.epochHeld()).isFalse();
        Ready byC = next.acked(C, new Ack(true, 2, EPOCH, ""), new Local(now, 2, 2));
        assertThat(next.epochHeld()).as("a has not answered").isFalse();
        Ready byA = next.acked(A, new Ack(false, 2, EPOCH, "recovering"), new Local(now, 2, 2));
        assertThat(next.epochHeld()).as("a refusal at its epoch: a persisted it all the same").isTrue();

        assertThat(byC.effects()).noneMatch(Announce.class::isInstance);
        assertThat(byA.effects()).filteredOn(Announce.class::isInstance).hasSize(1);
        assertThat(next.acked(A, new Ack(false, 2, EPOCH, "recovering"), new Local(now, 2, 2)).effects())
                .as("announced once").noneMatch(Announce.class::isInstance);
    }

    @Test
    void aPrimaryLeadingAloneIsAnnouncedAsItCatchesUp() {
        InSyncLeader alone = new InSyncLeader(B, log, ACK_TIMEOUT, PAUSE);
        alone.lead(Map.of(), Set.of(), new Local(now, 2, 2));

        assertThat(alone.catchUp(new Local(now, 2, 2)).effects()).anyMatch(Announce.class::isInstance);
    }

    @Test
    void aReplicaOnlyToldTheEpochThatCannotBeReachedIsNotWaitedFor() {
        InSyncLeader next = new InSyncLeader(B, log, ACK_TIMEOUT, PAUSE);
        next.lead(Map.of(), Set.of(A, C), new Local(now, 2, 2));
        next.catchUp(new Local(now, 2, 2));

        next.lost(A, "connection refused", new Local(now, 2, 2));
        next.acked(C, new Ack(false, 2, EPOCH - 1, "stale epoch"), new Local(now, 2, 2));
        assertThat(next.epochHeld()).as("c answered at an older epoch: it does not hold this one").isFalse();
        next.lost(C, "timed out", new Local(now, 2, 2));
        assertThat(next.epochHeld()).isTrue();
    }

    @Test
    void aPrimaryNotYetHeldStepsDownWhenASecondaryFollowsASecondPrimaryOfItsEpoch() {
        InSyncLeader next = new InSyncLeader(B, log, ACK_TIMEOUT, PAUSE);
        next.lead(Map.of(C, 2L), Set.of(), new Local(now, 2, 2));
        next.catchUp(new Local(now, 2, 2));

        Ready ready = next.acked(C, new Ack(false, 2, EPOCH, "following d at epoch " + EPOCH), new Local(now, 2, 2));

        assertThat(ready.effects()).singleElement().isInstanceOf(StepDown.class);
    }

    @Test
    void aHeldPrimaryExcludesASecondaryThatFollowsAnotherInsteadOfSteppingDown() {
        Ready ready = leader.acked(B, new Ack(false, 2, EPOCH, "following d at epoch " + EPOCH), here(2));

        assertThat(ready.effects()).noneMatch(StepDown.class::isInstance).anyMatch(Demote.class::isInstance);
    }
}
