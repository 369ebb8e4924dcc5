package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
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
public final class Election {
    private Election() {}

    /** A replica standing for primary, as a fail-stop election ranks it: its node, where its log ends, its priority. */
    public record Candidate(String node, long lastEpoch, long lastLsn, int priority) {}

    /**
     * What a rival answered in a fail-stop election: its role (as it named it), the epoch it is at,
     * and itself as a {@link Candidate}.
     */
    public record Rival(String role, long epoch, Candidate candidate) {}

    /** A fail-stop election won: the epoch to lead and the rivals that follow (those that answered SECONDARY). */
    public record FailStopWin(long epoch, List<String> followers) {
        public FailStopWin {
            followers = List.copyOf(followers);
        }
    }

    /**
     * How long a replica waits before standing for election: {@code baseNanos}, plus {@code stepNanos}
     * for every live replica of higher priority, plus a random jitter smaller than a step. Candidates
     * thus stand in priority order (the dissertation's choice of primary), and replicas of one priority
     * rarely split the vote.
     */
    public record StandDelay(long baseNanos, long stepNanos) {
        /** The delay of a replica {@code self} of {@code priority}, seeing {@code view}, that drew {@code jitterNanos}. */
        public long of(Collection<Replica> view, NodeId self, int priority, long jitterNanos) {
            long higher = view.stream().filter(r -> r.priority() > priority && !r.node().equals(self)).count();
            return baseNanos + higher * stepNanos + jitterNanos;
        }
    }

    /** Where a log ends: its last record's epoch and LSN. */
    public record LogEnd(long lastEpoch, long lastLsn) {}

    /**
     * A {@code majority}-mode vote request as a voter weighs it: the epoch asked for, where the
     * candidate's log ends, whether it is a transfer (after a handover or an operator's promote:
     * a primary heard lately does not count against it), and whether it is only a pre-vote (which
     * asks whether the vote would be granted and changes nothing).
     */
    public record VoteRequest(long epoch, LogEnd candidateLog, boolean transfer, boolean preVote) {}

    /**
     * What a {@code majority}-mode voter does with a vote request: it answers {@code granted} (or
     * refused with {@code reason}) at {@code epoch}; if {@code persist}, it granted a vote, not a
     * pre-vote, and before answering persists that epoch (which is its vote, as only one candidate
     * asks for each epoch it does not refuse) and restarts its election timer, so the candidate has
     * time to win before this replica stands itself.
     */
    public record Ballot(boolean granted, long epoch, String reason, boolean persist) {}

    /** A primary a voter heard from within an election timeout, still in its yellow page, {@code millisAgo}. */
    public record Heard(String primary, long millisAgo) {}

    /**
     * What a {@code majority}-mode voter knows when it weighs a vote: its persisted epoch, whether it
     * leads it, the primary it heard from lately (or null), and where its own log ends.
     */
    public record Voter(long epoch, boolean leads, @Nullable Heard heard, LogEnd log) {}

    /**
     * What a {@code majority}-mode replica knows when an operator asks it to stand for primary now
     * (promote): whether it leads; whether it is a voter of the partition's {@code configuration};
     * where its log lost records its service applied (0: none); whether it waits for a snapshot or
     * diverged; whether an operator's election is under way; and a live primary of its epoch or a
     * later one in its yellow page, or null.
     */
    public record Promotion(boolean leads, boolean voter, String configuration, long lostTailEnd,
            boolean installing, boolean diverged, boolean promoting, @Nullable NodeId livePrimary) {}

    /**
     * Why a {@code majority}-mode replica does not stand now as an operator's promote asks, or null if
     * it does (a majority must still vote for it).
     */
    public static @Nullable String promoteRefusal(Promotion p) {
        if (p.leads()) {
            return "already primary";
        }
        if (!p.voter()) {
            return "not a voter of the partition's configuration " + p.configuration();
        }
        if (p.lostTailEnd() > 0) {
            return "its log lost records up to " + p.lostTailEnd() + " that its service applied; they come back"
                    + " only from a peer";
        }
        if (p.installing()) {
            return "it needs a snapshot first";
        }
        if (p.diverged()) {
            return "diverged";
        }
        if (p.promoting()) {
            return "an election is under way";
        }
        return p.livePrimary() != null ? "a live primary exists: " + p.livePrimary() : null;
    }

    /**
     * Why {@code voter} refuses {@code request}, or null if it grants it (Raft §5.2, §5.4.1, §9.6): only
     * for an epoch above its own; not while it leads or heard from a live primary lately, unless the
     * request is a transfer (so a replica cut off from the others cannot depose a primary that a majority
     * follows); and only for a log at least as complete as its own. A pre-vote is weighed the same way
     * and changes nothing; a granted vote is persisted by the voter with the epoch.
     */
    public static @Nullable String voteRefusal(VoteRequest request, Voter voter) {
        if (request.epoch() <= voter.epoch()) {
            return "epoch " + request.epoch() + " is not above mine (" + voter.epoch() + ")";
        }
        if (!request.transfer() && voter.leads()) {
            return "I lead epoch " + voter.epoch();
        }
        Heard heard = voter.heard();
        if (!request.transfer() && heard != null) {
            return "heard from primary " + heard.primary() + " " + heard.millisAgo() + " ms ago";
        }
        LogEnd mine = voter.log();
        LogEnd theirs = request.candidateLog();
        if (!atLeastAsComplete(theirs.lastEpoch(), theirs.lastLsn(), mine.lastEpoch(), mine.lastLsn())) {
            return "my log is more complete (epoch " + mine.lastEpoch() + ", LSN " + mine.lastLsn() + ")";
        }
        return null;
    }

    /**
     * What {@code voter} answers to {@code request} ({@link Ballot}): a refusal ({@link #voteRefusal})
     * at its own epoch; a pre-vote granted at its own epoch, changing nothing; a vote granted at the
     * epoch asked for, which it persists first.
     */
    public static Ballot vote(VoteRequest request, Voter voter) {
        String refusal = voteRefusal(request, voter);
        if (refusal != null) {
            return new Ballot(false, voter.epoch(), refusal, false);
        }
        if (request.preVote()) {
            return new Ballot(true, voter.epoch(), "", false);
        }
        return new Ballot(true, request.epoch(), "", true);
    }

    /**
     * Whether a log ending at ({@code lastEpochA}, {@code lastLsnA}) is at least as complete as one
     * ending at ({@code lastEpochB}, {@code lastLsnB}): a later last epoch wins, then a longer log
     * (Raft §5.4.1). Sound only where epochs are never reused ({@code majority} mode).
     */
    public static boolean atLeastAsComplete(long lastEpochA, long lastLsnA, long lastEpochB, long lastLsnB) {
        return lastEpochA != lastEpochB ? lastEpochA > lastEpochB : lastLsnA >= lastLsnB;
    }

    /**
     * Orders fail-stop candidates: most complete log first (epoch, then LSN), then priority, then the
     * lower node id. Positive if {@code a} ranks above {@code b}.
     */
    public static int compare(Candidate a, Candidate b) {
        int c = Long.compare(a.lastEpoch(), b.lastEpoch());
        if (c == 0) {
            c = Long.compare(a.lastLsn(), b.lastLsn());
        }
        if (c == 0) {
            c = Integer.compare(a.priority(), b.priority());
        }
        return c != 0 ? c : b.node().compareTo(a.node());
    }

    /**
     * Decides a fail-stop election from the rivals' fresh answers ({@code null}: a rival did not
     * answer) for candidate {@code self} at {@code epoch}: null if someone else leads or may have to
     * (a rival answered as primary, a candidate rival ranks above it by {@link #compare}, or a rival
     * did not answer and its log may be more complete); else the epoch above every one seen, with the
     * secondaries as followers. Candidates are the rivals that answered SECONDARY, and in a
     * {@code catastrophic} election (after every replica was down) the RECOVERING ones too.
     */
    public static @Nullable FailStopWin failStop(List<@Nullable Rival> rivals, boolean catastrophic, long epoch,
            Candidate self) {
        long maxEpoch = epoch;
        List<String> followers = new ArrayList<>();
        for (Rival r : rivals) {
            if (r == null) {
                return null;
            }
            boolean secondary = r.role().equals(ReplicaRole.SECONDARY.name());
            boolean candidate = secondary || (catastrophic && r.role().equals(ReplicaRole.RECOVERING.name()));
            if (r.role().equals(ReplicaRole.PRIMARY.name()) || (candidate && compare(r.candidate(), self) > 0)) {
                return null;
            }
            maxEpoch = Math.max(maxEpoch, r.epoch());
            if (secondary) {
                followers.add(r.candidate().node());
            }
        }
        return new FailStopWin(maxEpoch + 1, followers);
    }

    /** The replica of {@code view} on {@code node}, or null if the view has none there. */
    public static @Nullable Replica replicaOf(Collection<Replica> view, NodeId node) {
        for (Replica r : view) {
            if (r.node().equals(node)) {
                return r;
            }
        }
        return null;
    }

    /**
     * The replica of {@code view} other than {@code self} that announces itself PRIMARY at
     * {@code epoch} or later (the latest such epoch if several do), or null.
     */
    public static @Nullable Replica livePrimary(List<Replica> view, NodeId self, long epoch) {
        Replica best = null;
        for (Replica r : view) {
            if (r.role() == ReplicaRole.PRIMARY && !r.node().equals(self) && r.epoch() >= epoch
                    && (best == null || r.epoch() > best.epoch())) {
                best = r;
            }
        }
        return best;
    }

    /**
     * The epoch a fail-stop replica promoted by an operator leads: above its own {@code epoch} and
     * above every epoch a replica of {@code view} announces. After an outage the most complete
     * survivor may never have heard of the last primary's epoch, which another replica still announces;
     * leading that epoch again would make two primaries of one epoch, whose logs differ.
     */
    public static long promotedEpoch(long epoch, List<Replica> view) {
        long highest = epoch;
        for (Replica r : view) {
            highest = Math.max(highest, r.epoch());
        }
        return highest + 1;
    }

    /** How many of {@code replicas} replicas make a majority. */
    public static int quorum(int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas: " + replicas + " (expected: >= 1)");
        }
        return replicas / 2 + 1;
    }

    /**
     * The highest LSN that at least {@code quorum} of the given log positions reach (each a replica's
     * durable, matching log end, the primary's own included); 0 if fewer than {@code quorum} are given.
     */
    public static long majorityPosition(Collection<Long> positions, int quorum) {
        if (positions.size() < quorum) {
            return 0;
        }
        return quorumThLargest(positions, quorum);
    }

    /**
     * The latest moment (on the primary's clock) from which a majority is known to have followed it:
     * the {@code quorum}-th latest of the send times of the messages each replica acknowledged (the
     * primary's own is now). {@link Long#MIN_VALUE} if fewer than {@code quorum} are given.
     */
    public static long majorityContact(Collection<Long> sendTimes, int quorum) {
        if (sendTimes.size() < quorum) {
            return Long.MIN_VALUE;
        }
        return quorumThLargest(sendTimes, quorum);
    }

    private static long quorumThLargest(Collection<Long> values, int quorum) {
        long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return sorted[sorted.length - quorum];
    }
}
