package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.PeerMessages.ReplicaStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The pure rules of choosing a primary and committing writes ({@code docs/protocols/replication.md}):
 * which log is more complete, how many replicas make a majority, and how far a majority has a log.
 * No state, no I/O: unit-tested on its own.
 */
final class Election {
    private Election() {}

    /**
     * Whether a log ending at ({@code lastEpochA}, {@code lastLsnA}) is at least as complete as one
     * ending at ({@code lastEpochB}, {@code lastLsnB}): a later last epoch wins, then a longer log
     * (Raft §5.4.1). Sound only where epochs are never reused ({@code majority} mode).
     */
    static boolean atLeastAsComplete(long lastEpochA, long lastLsnA, long lastEpochB, long lastLsnB) {
        return lastEpochA != lastEpochB ? lastEpochA > lastEpochB : lastLsnA >= lastLsnB;
    }

    /**
     * Orders fail-stop candidates: most complete log first (epoch, then LSN), then priority, then the
     * lower node id. Positive if A ranks above B.
     */
    static int compare(long epochA, long lsnA, int priorityA, String nodeA, long epochB, long lsnB, int priorityB,
            String nodeB) {
        int c = Long.compare(epochA, epochB);
        if (c == 0) {
            c = Long.compare(lsnA, lsnB);
        }
        if (c == 0) {
            c = Integer.compare(priorityA, priorityB);
        }
        return c != 0 ? c : nodeB.compareTo(nodeA);
    }

    /** A fail-stop election won: the epoch to lead and the rivals that follow (those that answered SECONDARY). */
    record FailStopWin(long epoch, List<ReplicaStatus> followers) {}

    /**
     * Decides a fail-stop election from the rivals' fresh statuses ({@code null}: a rival did not
     * answer) for a candidate at {@code epoch} whose log ends at ({@code lastEpoch}, {@code lastLsn}):
     * null if someone else leads or may have to (a rival answered as primary, a candidate rival ranks
     * above it by {@link #compare}, or a rival did not answer and its log may be more complete); else
     * the epoch above every one seen, with the secondaries as followers. Candidates are the rivals that
     * answered SECONDARY, and in a {@code catastrophic} election (after every replica was down) the
     * RECOVERING ones too.
     */
    static @Nullable FailStopWin failStop(List<@Nullable ReplicaStatus> statuses, boolean catastrophic, long epoch,
            long lastEpoch, long lastLsn, int priority, String self) {
        long maxEpoch = epoch;
        List<ReplicaStatus> followers = new ArrayList<>();
        for (ReplicaStatus s : statuses) {
            if (s == null) {
                return null;
            }
            boolean secondary = s.role().equals(ReplicaRole.SECONDARY.name());
            boolean candidate = secondary || (catastrophic && s.role().equals(ReplicaRole.RECOVERING.name()));
            if (s.role().equals(ReplicaRole.PRIMARY.name())
                    || (candidate && compare(s.lastEpoch(), s.logEnd(), s.priority(), s.node(), lastEpoch, lastLsn,
                            priority, self) > 0)) {
                return null;
            }
            maxEpoch = Math.max(maxEpoch, s.epoch());
            if (secondary) {
                followers.add(s);
            }
        }
        return new FailStopWin(maxEpoch + 1, List.copyOf(followers));
    }

    /**
     * The replica of {@code view} other than {@code self} that announces itself PRIMARY at
     * {@code epoch} or later (the latest such epoch if several do), or null.
     */
    static @Nullable Replica livePrimary(List<Replica> view, NodeId self, long epoch) {
        Replica best = null;
        for (Replica r : view) {
            if (r.role() == ReplicaRole.PRIMARY && !r.node().equals(self) && r.epoch() >= epoch
                    && (best == null || r.epoch() > best.epoch())) {
                best = r;
            }
        }
        return best;
    }

    /** How many of {@code replicas} replicas make a majority. */
    static int quorum(int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas: " + replicas + " (expected: >= 1)");
        }
        return replicas / 2 + 1;
    }

    /**
     * The highest LSN that at least {@code quorum} of the given log positions reach (each a replica's
     * durable, matching log end, the primary's own included); 0 if fewer than {@code quorum} are given.
     */
    static long majorityPosition(Collection<Long> positions, int quorum) {
        if (positions.size() < quorum) {
            return 0;
        }
        long[] sorted = positions.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return sorted[sorted.length - quorum];
    }

    /**
     * The latest moment (on the primary's clock) from which a majority is known to have followed it:
     * the {@code quorum}-th latest of the send times of the messages each replica acknowledged (the
     * primary's own is now). {@link Long#MIN_VALUE} if fewer than {@code quorum} are given.
     */
    static long majorityContact(Collection<Long> sendTimes, int quorum) {
        if (sendTimes.size() < quorum) {
            return Long.MIN_VALUE;
        }
        long[] sorted = sendTimes.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return sorted[sorted.length - quorum];
    }

    /**
     * How long a replica of {@code priority} waits before standing for election: {@code base}, plus
     * {@code step} for every live replica of higher priority in {@code view}, plus {@code jitter}, a random
     * draw smaller than a step. Candidates thus stand in priority order (the dissertation's choice of
     * primary), and replicas of one priority rarely split the vote.
     */
    static long standDelay(Collection<Replica> view, NodeId self, int priority, long base, long step, long jitter) {
        long higher = view.stream().filter(r -> r.priority() > priority && !r.node().equals(self)).count();
        return base + higher * step + jitter;
    }
}
