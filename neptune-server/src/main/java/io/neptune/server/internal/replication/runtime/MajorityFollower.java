package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@code majority}-mode replica as a follower ({@link MajorityReplica}): it takes the primary's
 * records into its log where they match (Raft's AppendEntries, {@link LogMatching}), learns the
 * commit point, applies what committed a slice at a time, and knows whether its applied state caught
 * up with the primary's (then it serves reads as SECONDARY) and, at level 3, how fresh that state is
 * ({@link FollowerFreshness}). The replica decides whose records it takes; this class what it does
 * with them.
 *
 * <p>Thread-safety: confined to the partition's serial executor, except {@link #fresh}.
 */
final class MajorityFollower {
    /**
     * How many committed writes a follower that caught up may have left to apply and still serve:
     * under a steady load the commit point always runs a message ahead of the slice that applies it,
     * and a follower whose slice ended a few writes short of it flapped to RECOVERING and back, a role
     * change announced to every node each time. One storage batch ({@link Applier#APPLY_BATCH}).
     */
    static final int MAX_SERVING_BACKLOG = Applier.APPLY_BATCH;
    private final ReplicaCore core;
    private final Membership membership;
    private final long stalenessNanos;
    /** The replica's phase: a leader applies through its QuorumLeader, a closed replica not at all. */
    private final Supplier<MajorityPhase> phase;
    /** Applies what the primary committed, a slice at a time, while the replica follows. */
    private final ApplySlices applying;
    /** Level 3: confirmed through the primary's read index. */
    private final FollowerFreshness freshness;
    /** The commit point the primary reported in its last accepted {@code replicate}. */
    private long primaryCommit;
    private long commitLsn;
    /** The LSN up to which this log is known to match the current epoch's primary's. */
    private long matchLsn;
    /**
     * Whether this replica's applied state caught up with what the primary had committed when it last
     * heard from it (as far as its log has them), and is not more than {@link #MAX_SERVING_BACKLOG} writes
     * behind that commit point. One that has not (new, far behind, storage failing) announces RECOVERING
     * and serves no reads; an election does not change it, since applied writes are committed ones.
     */
    private boolean matched;

    /** A follower of {@code core}'s partition, for a replica whose phase {@code phase} reads. */
    MajorityFollower(ReplicaCore core, Membership membership, long stalenessNanos, Supplier<MajorityPhase> phase) {
        this.core = core;
        this.membership = membership;
        this.stalenessNanos = stalenessNanos;
        this.phase = phase;
        this.applying = new ApplySlices(core, () -> !(phase.get() instanceof MajorityPhase.Leader
                || phase.get() instanceof MajorityPhase.Closed), this::applySlice);
        this.freshness = new FollowerFreshness(core, stalenessNanos);
    }

    /** At start: what the service applied is committed. */
    void start() {
        commitLsn = core.applied;
    }

    /**
     * Takes the records of {@code m}, from the primary of the current epoch, into the log where they
     * match, and answers {@code reply} (a refusal at {@code epoch}, the message's, which this
     * replica holds now): with the LSN up to which the log durably matches once the
     * records are durable, or with where it stops matching. Where an applied record differs from the
     * primary's, {@code diverged} runs before the answer: the replica leaves service.
     */
    void take(Replicate m, long epoch, Consumer<Object> reply, Runnable diverged) {
        membership.incoming(m.entries().stream().filter(e -> RecordKind.CONFIG.name().equals(e.kind()))
                .map(e -> Membership.Config.of(e.toRecord(e.lsn()))).toList()); // the file before the log
        LogMatching.Result result = LogMatching.accept(core, m, false);
        membership.reconcile(core.log);
        switch (result.outcome()) {
            case GAP, MISMATCH -> {
                matched = false;
                reply.accept(new Ack(false, result.match(), epoch, result.outcome() == LogMatching.Outcome.GAP ? "gap"
                        : "mismatch"));
            }
            case DIVERGED -> {
                diverged.run();
                reply.accept(new Ack(false, result.match(), epoch, "diverged"));
            }
            case MATCHED -> {
                long match = result.match();
                matchLsn = Math.max(matchLsn, match);
                long commit = Math.min(m.commitLsn(), match);
                CompletableFuture.allOf(result.appends().toArray(CompletableFuture[]::new)).whenComplete((v, e) ->
                        core.exec.execute(() -> {
                            if (e != null) {
                                reply.accept(new Ack(false, Math.min(core.durable, core.applied), core.log.epoch(),
                                        "log failure: " + e.getMessage()));
                                return;
                            }
                            // only what is durable: records an earlier message appended may still be on their way
                            reply.accept(new Ack(true, Math.min(match, core.durable), core.log.epoch(), ""));
                            primaryCommit = m.commitLsn();
                            commitLsn = Math.max(commitLsn, commit);
                            applyCommitted();
                        }));
            }
            default -> throw new IllegalStateException(result.outcome().name());
        }
    }

    /** Whether the applied state caught up with what the primary had committed when last heard from. */
    boolean matched() {
        return matched;
    }

    /** The replica leads: its applied state is the reference. */
    void leads() {
        matched = true;
    }

    /**
     * A new epoch (its own vote, or another's): what matched the old primary beyond its commit point
     * may be dropped by the new one; the applied state stays a good one to read.
     */
    void newEpoch() {
        matchLsn = commitLsn;
    }

    /** The replica stepped down: a new epoch's primary must confirm freshness again. */
    void steppedDown() {
        freshness.forget();
    }

    /** Retries applying after a write failed in storage (each tick); a replica whose storage fails does not stand. */
    void retryStorage() {
        if (core.storageFailedAt() != 0) {
            core.applyUpTo(commitLsn);
        }
    }

    /** Level 3: asks {@code primary} to confirm a commit point, as often as the staleness bound needs. */
    void refresh(NodeId primary, long now) {
        if (matched && stalenessNanos > 0) {
            freshness.refresh(primary, now, confirmed -> {
                commitLsn = Math.max(commitLsn, Math.min(confirmed, matchLsn));
                applyCommitted();
            });
        }
    }

    /** Whether the applied state was confirmed fresh within the staleness bound before {@code now}; any thread. */
    boolean fresh(long now) {
        return freshness.fresh(now);
    }

    /** Applies what committed ({@link ApplySlices}); a leader applies through its QuorumLeader instead. */
    private void applyCommitted() {
        if (!(phase.get() instanceof MajorityPhase.Leader)) {
            applying.next();
        }
    }

    private void applySlice() {
        applying.apply(commitLsn);
        freshness.applied(core.applied);
        // close: within one batch of the primary's commit point itself (not of what reached this log, which a
        // catch-up trails); a replica starts serving once it also applied all it has, and serves while close
        boolean close = primaryCommit - core.applied <= MAX_SERVING_BACKLOG;
        boolean caughtUp = core.applied >= Math.min(primaryCommit, commitLsn);
        matched = core.storageFailedAt() == 0 && close && (caughtUp || matched);
        if (core.storageFailedAt() == 0 && core.applied < Math.min(commitLsn, core.durable)) {
            applying.next(); // the next slice, behind whatever arrived meanwhile
        }
    }
}
