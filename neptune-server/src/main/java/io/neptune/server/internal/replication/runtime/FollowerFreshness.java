package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReadIndex;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReadIndexReply;
import java.util.function.LongConsumer;

/**
 * Level 3 in {@code majority} mode, on a follower: how fresh its applied state is. It asks the
 * primary for its commit point (a read index, answered only while the primary holds its lease);
 * once this replica has applied that point, its state is fresh as of the moment it asked, by its
 * own clock. A follower cut off from its primary thus stops serving bounded reads within the
 * staleness bound (docs/protocols/replication.md, "Level 3 in majority mode").
 *
 * <p>Thread-safety: confined to the partition's executor, except {@link #fresh}, which reads
 * volatile fields.
 */
final class FollowerFreshness {
    private final ReplicaCore core;
    private final long stalenessNanos;
    /** A read-index request is on its way, sent at {@link #sentNanos}. */
    private boolean inFlight;
    private long sentNanos;
    /** A commit point the primary confirmed for a request sent at {@link #confirmedSentNanos}, not yet applied. */
    private long confirmedCommit = -1;
    private long confirmedSentNanos;
    /** The state is fresh as of this time (this node's clock), or never if {@link #known} is false. */
    private volatile long freshAsOfNanos;
    private volatile boolean known;

    FollowerFreshness(ReplicaCore core, long stalenessNanos) {
        this.core = core;
        this.stalenessNanos = stalenessNanos;
    }

    /**
     * Asks {@code primary} for its commit point, unless a request is on its way or the state was
     * confirmed within half the bound; {@code confirmed} gets the point on the executor, if the
     * primary answered within this replica's epoch.
     */
    void refresh(NodeId primary, long now, LongConsumer confirmed) {
        if (inFlight || (known && now - freshAsOfNanos < stalenessNanos / 2)) {
            return;
        }
        inFlight = true;
        sentNanos = now;
        core.peers.call(primary, core.request("readIndex", new ReadIndex(core.service, core.partition)),
                ReadIndexReply.class).whenComplete((r, e) -> core.exec.execute(() -> {
                    inFlight = false;
                    if (r != null && r.ok() && r.epoch() == core.log.epoch()) {
                        confirmedCommit = r.commitLsn();
                        confirmedSentNanos = sentNanos;
                        confirmed.accept(r.commitLsn());
                    }
                }));
    }

    /** After applying up to {@code applied}: fresh as of the last confirmed request once its point is applied. */
    void applied(long applied) {
        if (confirmedCommit >= 0 && applied >= confirmedCommit) {
            freshAsOfNanos = confirmedSentNanos;
            known = true;
            confirmedCommit = -1;
        }
    }

    /** Forgets what was confirmed: a new epoch's primary must confirm again. */
    void forget() {
        known = false;
    }

    /** Whether the state was confirmed fresh less than the staleness bound before {@code now}. */
    boolean fresh(long now) {
        return known && now - freshAsOfNanos < stalenessNanos;
    }
}
