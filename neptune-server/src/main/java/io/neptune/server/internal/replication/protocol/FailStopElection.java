package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.protocol.Ready.AnswerOnceAnnounced;
import io.neptune.server.internal.replication.protocol.Ready.AnswerPromote;
import io.neptune.server.internal.replication.protocol.Ready.AskStatus;
import io.neptune.server.internal.replication.protocol.Ready.BecomePrimary;
import io.neptune.server.internal.replication.protocol.Ready.RoundOver;
import io.neptune.server.internal.replication.protocol.Ready.Stand;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of a fail-stop replica about taking the primary role when none leads (the
 * election of {@code docs/protocols/replication.md}), and about an operator's promote, as a state
 * machine: each input (a tick, the rivals' answers, a promote) returns a {@link Ready} with what to
 * do. A secondary that sees no live primary stands, unless it just heard from a new primary whose
 * announcement is on its way; a recovering replica stands only in a catastrophe (every replica was
 * down and all configured ones are back, none a secondary). A candidate asks every other live
 * replica for its status and wins if all answered, none is primary and no candidate among them
 * ranks above it ({@link Election#failStop}), and nothing changed while the answers were on their
 * way (its epoch moved, or a live primary appeared).
 *
 * <p>The election under way is a {@link Round}, which the replica keeps in its electing phase and
 * passes back with the answers: answers of another round (or none) are stale and ignored. It reads
 * the replica through a {@link View}: no I/O, no threads, no clock. Its driver ({@code Elections})
 * carries each {@link Ready} out and feeds the answers back.
 *
 * <p>Not thread-safe: confined to its driver's executor.
 */
public final class FailStopElection {
    private final NodeId self;
    private final int priority;
    private final int configuredReplicas;
    /** How many elections this replica started; each one's {@link Round#number} is its number. */
    private long rounds;

    /**
     * One election: its {@code number}, the {@code epoch} the replica was at when it stood, and whether
     * it is {@code catastrophic} (it stood from RECOVERING: every replica was down and all configured
     * ones are back), which makes recovering rivals candidates too.
     */
    public record Round(long number, long epoch, boolean catastrophic) {}

    /** The phase a replica that sees no live primary would stand from, as far as an election cares. */
    public enum From {
        /** A secondary (not handing over): it stands when the primary is lost. */
        SECONDARY,
        /** Recovering with no join under way: it stands only in a catastrophe. */
        RECOVERING,
        /** Any other phase: it does not stand. */
        NEITHER
    }

    /** What the election's decisions read of its replica: its log, its epoch, the primary it last heard from. */
    public interface View {
        /** The epoch this replica last persisted (its current epoch). */
        long epoch();

        /** The epoch of the log's last record. */
        long lastEpoch();

        /** The LSN of the log's last record, 0 if it is empty. */
        long lastLsn();

        /** The replica this one last heard from as primary (itself if it led), or null. */
        @Nullable NodeId lastPrimary();

        /**
         * Whether it could lead: its log holds every write its service applied (no lost tail) and no
         * snapshot is being installed.
         */
        boolean canLead();

        /** Whether a write still fails in its storage. */
        boolean storageFails();
    }

    /**
     * The election of replica {@code self} of {@code priority}, in a partition of {@code configuredReplicas}
     * replicas.
     */
    public FailStopElection(NodeId self, int priority, int configuredReplicas) {
        this.self = self;
        this.priority = priority;
        this.configuredReplicas = configuredReplicas;
    }

    /**
     * A tick of the replica, standing {@code from} a phase, that sees {@code view}: it stands if no live
     * primary is in the view and it is a secondary that is not waiting for a new primary's announcement,
     * or a recovering replica in a catastrophe; and only if it could lead.
     */
    public Ready tick(From from, List<Replica> view, View replica) {
        Ready ready = new Ready();
        if (Election.livePrimary(view, self, replica.epoch()) != null) {
            return ready;
        }
        if (from == From.SECONDARY && !newPrimaryNotAnnouncedYet(view, replica)) {
            // its log lacks records its service applied, or its service writes its log no longer has: it cannot lead
            if (replica.canLead()) {
                stand(false, view, replica, ready);
            }
        } else if (from == From.RECOVERING && catastrophe(view, replica)) {
            if (replica.canLead()) {
                stand(true, view, replica, ready); // catastrophic: every replica was down and all configured ones are back
            }
        }
        return ready;
    }

    /**
     * Whether the replica this one last heard from as primary is still in the yellow page with an
     * announcement older than this replica's epoch: it took over a moment ago and its announcement is
     * on its way. Electing now would depose a working primary (its writes in flight would fail).
     * If it died instead, it leaves the view (or its announcement expires) and the election goes on.
     */
    private boolean newPrimaryNotAnnouncedYet(List<Replica> view, View replica) {
        NodeId last = replica.lastPrimary();
        return last != null && !last.equals(self)
                && view.stream().anyMatch(r -> r.node().equals(last) && r.epoch() < replica.epoch());
    }

    /**
     * Whether every replica was down and all configured ones are back: none but this one announces
     * SECONDARY, the view holds them all, and no write fails in this replica's storage.
     */
    private boolean catastrophe(List<Replica> view, View replica) {
        return view.stream().noneMatch(r -> r.role() == ReplicaRole.SECONDARY && !r.node().equals(self))
                && view.size() >= configuredReplicas && !replica.storageFails();
    }

    /**
     * Stands for primary: a new round, and every other live replica asked for its status, whatever it
     * announces. An announcement lags, and a replica that just finished joining still looks RECOVERING
     * (or a new primary right after a handover does); left out, it could hold an election of its own at
     * the same epoch; its fresh status tells what it is. The answers, not the announcements, rank the
     * candidates: an announcement carries a replica's current epoch, which runs ahead of its last
     * record's epoch when the epoch has no writes yet, so ruling candidates out on it could leave no one
     * to elect.
     */
    private void stand(boolean catastrophic, List<Replica> view, View replica, Ready ready) {
        Round round = new Round(++rounds, replica.epoch(), catastrophic);
        List<NodeId> rivals = view.stream().map(Replica::node).filter(n -> !n.equals(self)).toList();
        ready.add(new Stand(round)).add(new AskStatus(rivals, round.number()));
    }

    /**
     * The rivals of round {@code number} answered with {@code answers} ({@code null}: a rival did not
     * answer), in the order they were asked; {@code current} is the round the replica's phase holds (null
     * if it is not electing), and it sees {@code view} now. If the answers belong to the round under way,
     * the round is over: the replica goes back to where it stood from, and becomes primary if it won and
     * nothing changed meanwhile.
     */
    public Ready answered(@Nullable Round current, long number, List<Election.@Nullable Rival> answers,
            List<Replica> view, View replica) {
        Ready ready = new Ready();
        if (current == null || current.number() != number) {
            return ready; // it left that round meanwhile (promoted, stepped down, joining, closed): it is over
        }
        ready.add(new RoundOver());
        if (replica.epoch() != current.epoch() || Election.livePrimary(view, self, replica.epoch()) != null) {
            // Things changed while the answers were on their way: another replica took over (its first replicate
            // brought a new epoch before its announcement did), and the answers, older than this log, are stale.
            return ready;
        }
        Election.Candidate candidate = new Election.Candidate(self.value(), replica.lastEpoch(), replica.lastLsn(),
                priority);
        Election.FailStopWin win = Election.failStop(answers, current.catastrophic(), replica.epoch(), candidate);
        if (win == null) {
            return ready; // a rival leads, outranks it, or did not answer: the next tick may try again
        }
        Map<NodeId, Long> followers = new LinkedHashMap<>();
        List<NodeId> others = new ArrayList<>();
        for (Election.@Nullable Rival answer : answers) {
            if (answer == null) {
                continue;
            }
            NodeId node = NodeId.of(answer.candidate().node());
            if (win.followers().contains(answer.candidate().node())) {
                followers.put(node, answer.candidate().lastLsn());
            } else {
                others.add(node);
            }
        }
        String why = current.catastrophic() ? "all configured replicas are back" : "primary lost";
        return ready.add(new BecomePrimary(win.epoch(), followers, others, why));
    }

    /**
     * An operator asks the replica, which sees {@code view} and is the primary if {@code leads}, to take
     * the primary role: refused while another live primary exists; else it leads, with no follower, at an
     * epoch above its own and above every one the view announces ({@link Election#promotedEpoch}), tells
     * every other replica of the view that epoch, and answers once it is announced.
     */
    public Ready promote(boolean leads, List<Replica> view, View replica) {
        Ready ready = new Ready();
        if (leads) { // not yet announced, it could still be the primary of an epoch no other replica knows
            return ready.add(new AnswerOnceAnnounced(replica.epoch(), "already primary"));
        }
        Replica live = Election.livePrimary(view, self, replica.epoch());
        if (live != null) {
            return ready.add(new AnswerPromote(false, "a live primary exists: " + live.node(), replica.epoch()));
        }
        long epoch = Election.promotedEpoch(replica.epoch(), view);
        List<NodeId> others = view.stream().map(Replica::node).filter(n -> !n.equals(self)).toList();
        return ready.add(new Warn("promoted by an operator with log end " + replica.lastLsn()))
                .add(new BecomePrimary(epoch, Map.of(), others, "operator"))
                .add(new AnswerOnceAnnounced(epoch, ""));
    }
}
