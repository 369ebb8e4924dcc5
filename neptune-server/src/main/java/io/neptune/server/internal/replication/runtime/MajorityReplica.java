package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.runtime.PeerMessages.Demote;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.Join;
import io.neptune.server.internal.replication.runtime.PeerMessages.JoinReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.Promote;
import io.neptune.server.internal.replication.runtime.PeerMessages.PromoteReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReadIndex;
import io.neptune.server.internal.replication.runtime.PeerMessages.Reconfigure;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReadIndexReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import io.neptune.server.internal.replication.runtime.PeerMessages.StatusRequest;
import io.neptune.server.internal.replication.runtime.PeerMessages.TakeOver;
import io.neptune.server.internal.replication.runtime.PeerMessages.Vote;
import io.neptune.server.internal.replication.runtime.PeerMessages.VoteReply;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Candidate;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Closed;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Diverged;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Follower;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Leader;
import io.neptune.server.internal.replication.protocol.Candidacy;
import io.neptune.server.internal.replication.protocol.Election;
import io.neptune.server.internal.replication.protocol.ElectionTimer;
import io.neptune.server.internal.replication.protocol.Handovers;
import io.neptune.server.internal.replication.protocol.MajorityLease;
import io.neptune.server.internal.replication.protocol.ReplicateGate;
import io.neptune.server.internal.replication.protocol.VersionSampler;
import io.neptune.server.internal.replication.protocol.WakeGrace;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Level 2 and 3 primary-secondary replication of one partition in {@code majority} fail-over mode
 * ({@code docs/protocols/replication.md}, DESIGN §6.3): a write commits once a majority of the
 * partition's replicas logged it durably, a primary is elected only with a majority's votes, and a
 * primary that no majority answers stops taking writes. A network split or a paused process can
 * therefore never produce two primaries that both commit, and never loses a committed write.
 *
 * <p>The protocol is Raft's (Ongaro and Ousterhout, 2014) in Neptune's terms: an epoch is a term,
 * the primary a leader. Replicas vote at most once per epoch (a vote is granted only for an epoch
 * above the persisted one, which the vote then persists), only for a candidate whose log is at least
 * as complete as theirs, and only after a pre-vote round, so a replica cut off from the others never
 * raises its epoch and disrupts the majority when it comes back. Each {@code replicate} names the
 * record before its entries (log matching); a new primary logs a no-op so its inherited tail commits
 * with a record of its own epoch. The dissertation's priorities still choose the primary in the end:
 * a caught-up replica of higher priority asks for a handover and is elected at once.
 *
 * <p>Level 3 reads: the primary serves them while a majority answered it within the staleness
 * bound; a secondary while it applied a commit point the primary confirmed with a majority after the
 * secondary asked, within the bound (both on the node's own clock).
 *
 * <p>Thread-safety: all state is confined to the partition's serial executor; {@link #fresh()} is
 * thread-safe.
 */
final class MajorityReplica implements PartitionReplica {
    private static final Logger logger = LoggerFactory.getLogger(MajorityReplica.class);

    private final ReplicaCore core;
    private final String name;
    private final int priority;
    private final Membership membership;
    private final long electionTimeoutNanos;
    private final long stalenessNanos;
    private final VersionSampler versions;
    private final WakeGrace wakeGrace;
    private final PriorityHandover priorityHandover;

    /** Where this replica stands, with the operation under way there; written only by {@link #enter}. */
    private volatile MajorityPhase phase = new Follower();
    /** The primary of the current epoch, once heard from. */
    private @Nullable NodeId primary;
    /** When to stand for election, and when this replica last heard from a primary. */
    private final ElectionTimer timer;
    /** Carries out its candidacies: ballots sent, answers fed back, the highest epoch seen in refusals. */
    private final Candidacies candidacies;
    /** Its side as a follower: the log it takes, the commit point, applying, freshness. */
    private final MajorityFollower following;

    /** The election timeout for an ack timeout of {@code ackTimeout}: half of it, 300 ms at least. */
    static Duration electionTimeout(Duration ackTimeout) {
        return Duration.ofMillis(Math.max(300, ackTimeout.toMillis() / 2));
    }

    MajorityReplica(ReplicaCore core, ReplicaSettings settings) {
        this.core = core;
        this.name = core.name;
        this.priority = settings.priority();
        this.membership = new Membership(core.name, core.directory, core.self, settings.configuredReplicas(),
                settings.learner());
        this.electionTimeoutNanos = electionTimeout(settings.ackTimeout()).toNanos();
        this.wakeGrace = new WakeGrace(electionTimeoutNanos);
        this.timer = new ElectionTimer(electionTimeoutNanos, core.self, priority, bound -> core.random.nextLong(bound));
        this.priorityHandover = new PriorityHandover(core);
        this.stalenessNanos = settings.stalenessNanos();
        this.versions = new VersionSampler(stalenessNanos);
        this.following = new MajorityFollower(core, membership, stalenessNanos, () -> phase);
        this.candidacies = new Candidacies(core, membership, () -> phase, new Candidacies.Host() {
            @Override
            public void newEpoch() {
                primary = null;
                following.newEpoch();
            }

            @Override
            public void adoptEpoch(long epoch, String why, Runnable then) {
                MajorityReplica.this.adoptEpoch(epoch, why, then);
            }

            @Override
            public void won(Candidate candidate, Candidacy.Won won) {
                becomePrimary(candidate, won);
            }

            @Override
            public void ended(String why) {
                endCandidacy(why);
            }
        });
        core.attach(new ModeCallbacks() {
            @Override
            public void durableAdvanced() {
                if (phase instanceof Leader l) {
                    l.leader().advance();
                }
            }

            @Override
            public String snapshotMembers(long lsn) {
                return membership.encodedAt(lsn);
            }

            @Override
            public void installedMembers(String members) {
                membership.installedEncoded(members);
            }
        });
    }

    @Override
    public void start() {
        core.exec.execute(() -> {
            core.internalSync();
            membership.reconcile(core.log);
            following.start();
            timer.heardFromNobody(core.clock.getAsLong(), view()); // it may have voted a moment ago: it waits a timeout first
            publish();
        });
    }

    /** How this replica's leader sees its followers, or "not leading", read on the executor; for diagnostics. */
    CompletableFuture<String> leaderState() {
        CompletableFuture<String> state = new CompletableFuture<>();
        core.exec.execute(() -> {
            state.complete(phase instanceof Leader l ? l.leader().toString() : "not leading");
        });
        return state;
    }

    // ---------------------------------------------------------------- client writes (primary)

    @Override
    public void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        core.exec.execute(() -> {
            if (!(phase instanceof Leader l)) {
                reply.accept(core.notPrimary(request.requestId(), primary));
                return;
            }
            QuorumLeader leader = l.leader();
            MajorityLease lease = leader.lease(MajorityLease.periodFor(electionTimeoutNanos));
            String noMajority = lease.writeRefusal(name, membership.size(), membership.quorum());
            if (noMajority != null) {
                reply.accept(ResponseMessage.error(request.requestId(), Status.NO_MAJORITY, noMajority));
            } else if (!core.refusedUndecodable(request, reply) && (l.handoff() == null || !l.handoff().hold(request, reply))) {
                leader.write(request, reply);
            }
        });
    }

    // ---------------------------------------------------------------- peer messages

    @Override
    public boolean takesPlacementChanges() {
        return true;
    }

    @Override
    public Class<?> messageType(String method) {
        return ConfigChange.majorityMessageType(method);
    }

    @Override
    public void onPeerMessage(String method, Object message, Consumer<Object> reply) {
        core.exec.execute(() -> {
            if (phase instanceof Closed || core.snapshots().onPeerMessage(message, reply)) {
                return; // closed: silent, as a stopped process is
            }
            if (message instanceof Replicate m) {
                onReplicate(m, reply);
            } else if (message instanceof Vote m) {
                onVote(m, reply);
            } else if (message instanceof StatusRequest m) {
                reply.accept(status(m));
            } else if (message instanceof ReadIndex) {
                onReadIndex(reply);
            } else if (message instanceof Handover m) {
                onHandover(m, reply);
            } else if (message instanceof TakeOver m) {
                takeOver(m, reply);
            } else if (message instanceof Promote) {
                promote(reply);
            } else if (message instanceof Reconfigure m) { // an operator's add-replica or remove-replica
                reconfigure(m, reply);
            } else if (message instanceof Join) {
                reply.accept(new JoinReply(false, "majority mode has no join", core.log.epoch(), 0, 0, List.of(), false,
                        0, ""));
            } else if (message instanceof Demote) {
                reply.accept(new Ack(true, core.log.lastLsn(), core.log.epoch(), ""));
            } else {
                throw new IllegalArgumentException(method);
            }
        });
    }

    private ReplicaStatus status(StatusRequest m) {
        return new ReplicaStatus(core.self.value(), role().name(), core.log.epoch(), core.log.lastEpoch(),
                core.log.lastLsn(), core.applied, priority, core.digestFor(m), core.log.startLsn());
    }

    private void onReplicate(Replicate m, Consumer<Object> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        NodeId from = NodeId.of(m.from());
        ReplicateGate.Verdict verdict = ReplicateGate.check(m.epoch(), from, core.log.epoch(), phase instanceof Leader,
                primary);
        if (verdict instanceof ReplicateGate.Refuse refusal) {
            if (refusal.twoPrimaries()) {
                logger.error("{}: {} also claims epoch {}; refusing it: {}", name, from, m.epoch(), refusal.reason());
            }
            reply.accept(new Ack(false, core.log.lastLsn(), core.log.epoch(), refusal.reason()));
            return;
        }
        if (verdict instanceof ReplicateGate.Adopt newer) {
            adoptEpoch(newer.epoch(), from + " leads epoch " + newer.epoch(), () -> follow(m, from, reply));
        } else {
            follow(m, from, reply);
        }
    }

    /** Takes {@code m} from {@code from}, the primary of this replica's epoch, which the gate let through. */
    private void follow(Replicate m, NodeId from, Consumer<Object> reply) {
        long epoch = core.log.epoch();
        endCandidacy(from + " won epoch " + epoch);
        primary = from;
        timer.heard(core.clock.getAsLong(), from, view());
        if (phase instanceof Diverged) {
            reply.accept(new Ack(false, core.applied, epoch, "diverged"));
            return;
        }
        if (core.snapshots().installing()) {
            core.snapshots().tick(from);
            reply.accept(new Ack(false, core.log.lastLsn(), epoch, "installing"));
            return;
        }
        following.take(m, epoch, reply, () -> {
            enter(new Diverged());
            publish();
        });
    }

    /**
     * Answers a vote or pre-vote as {@link Election#vote} decides, persisting the epoch of a vote it
     * grants before it answers.
     */
    private void onVote(Vote m, Consumer<Object> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        Election.Voter voter = new Election.Voter(core.log.epoch(), phase instanceof Leader,
                timer.heardLately(core.clock.getAsLong(), primary, view()),
                new Election.LogEnd(core.log.lastEpoch(), core.log.lastLsn()));
        Election.Ballot ballot = Election.vote(m.request(), voter);
        VoteReply answer = new VoteReply(ballot.granted(), ballot.epoch(), ballot.reason());
        if (ballot.persist()) {
            logger.info("{}: voted for {} at epoch {}", name, m.node(), m.epoch());
            adoptEpoch(m.epoch(), "voted for " + m.node(), () -> {
                timer.heardFromNobody(core.clock.getAsLong(), view()); // give the candidate time to win before electing
                reply.accept(answer);
            });
        } else {
            reply.accept(answer);
        }
    }

    private void onReadIndex(Consumer<Object> reply) {
        if (phase instanceof Leader l) {
            l.leader().readIndex(reply);
        } else {
            reply.accept(new ReadIndexReply(false, core.log.epoch(), 0));
        }
    }

    private void reconfigure(Reconfigure m, Consumer<Object> reply) {
        if (!(phase instanceof Leader l)) {
            ConfigChange.refuse(membership, "not the primary" + (primary != null ? " (primary: " + primary + ")" : ""),
                    reply);
        } else if (l.change() != null && !l.change().done()) {
            ConfigChange.refuse(membership, "another placement change is under way", reply);
        } else {
            ConfigChange next = ConfigChange.start(core, membership, l.leader(), m, reply);
            if (phase == l) { // the change's first step may have stepped it down
                enter(l.withChange(next));
            }
        }
    }

    private void onHandover(Handover m, Consumer<Object> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        NodeId node = NodeId.of(m.node());
        NodeId handingOffTo = phase instanceof Leader l ? l.handingOffTo() : null;
        boolean pinned = phase instanceof Leader l && l.pinned();
        String refusal = Handovers.refusal(phase instanceof Leader, handingOffTo, pinned, m.operator());
        if (refusal != null || !(phase instanceof Leader l)) {
            reply.accept(new HandoverReply(false, String.valueOf(refusal), core.log.epoch(), core.log.lastLsn()));
            return;
        }
        QuorumLeader leader = l.leader();
        if (m.operator()) {
            Handoff handoff = new Handoff(core, node, new Handoff.Host() {
                @Override
                public boolean leads() {
                    return phase instanceof Leader now && now.leader() == leader;
                }

                @Override
                public boolean caughtUp(NodeId target) {
                    return leader.idle() && leader.match(target) >= core.log.lastLsn();
                }

                @Override
                public void stepDownFor(NodeId target) {
                    handTo(target, "operator");
                }

                @Override
                public void write(RequestMessage request, Consumer<ResponseMessage> answer) {
                    MajorityReplica.this.write(request, answer);
                }
            }, reply);
            if (phase == l) { // still leading: it waits for the target to catch up
                enter(l.withHandoff(handoff));
            }
        } else if (!leader.idle() || leader.match(node) < core.log.lastLsn()) {
            reply.accept(new HandoverReply(false, "not caught up", core.log.epoch(), core.log.lastLsn()));
        } else {
            logger.info("{}: handing the primary role to {} (higher priority) at {}", name, node, core.log.lastLsn());
            handTo(node, "higher priority");
            reply.accept(new HandoverReply(true, "", core.log.epoch(), core.log.lastLsn()));
        }
    }

    /**
     * Steps down for {@code node}, which takes the role next, and follows it as its primary from now:
     * a write that comes meanwhile is answered {@code NOT_PRIMARY} naming it, and for an election
     * timeout this replica refuses any other candidate's (pre-)vote as a follower does, while granting
     * the target's transfer vote. If the target never stands, that timeout ends and the partition elects.
     */
    private void handTo(NodeId node, String why) {
        stepDown("handover to " + node + " (" + why + ")");
        primary = node;
    }

    /** An operator's move-primary (or a draining node) asks this replica to take the primary role over. */
    private void takeOver(TakeOver m, Consumer<Object> reply) {
        NodeId p = primary;
        boolean behind = phase instanceof Diverged || !following.matched() || core.storageFailedAt() != 0
                || core.log.lostTailEnd() > 0 || !membership.counts(core.self);
        String refusal = TakeOvers.refusal(phase instanceof Leader, behind, phase instanceof Candidate, p);
        if (!TakeOvers.answeredRefusal(refusal, p, core.log.epoch(), reply)) {
            TakeOvers.askHandover(core, requireNonNull(p), reply, () -> phase instanceof Follower,
                    handedOver -> startElection(new Candidate(true, reply, m.pin())));
        }
    }

    // ---------------------------------------------------------------- elections

    @Override
    public void tick() {
        core.exec.runNowOrQueue(() -> {
            if (phase instanceof Closed) {
                return;
            }
            List<Replica> view = view();
            Set<NodeId> nodes = membership.seen(view);
            membership.reconcile(core.log); // a checkpoint or a snapshot may have moved the log's start
            versions.sample(core.applied, core.clock.getAsLong());
            if (wakeGrace.tick(core.clock.getAsLong()) && phase instanceof Follower) {
                timer.restart(core.clock.getAsLong(), view); // woken from a pause: the primary gets a timeout to be heard
            }
            if (phase instanceof Leader || phase instanceof Follower) {
                core.snapshots().checkpoint(view);
            }
            if (phase instanceof Leader l) {
                lead(l, nodes);
                if (l.change() != null && phase instanceof Leader) {
                    l.change().tick(view);
                }
            } else if (phase instanceof Follower) {
                follow(view);
            } else if (phase instanceof Candidate && timer.due(core.clock.getAsLong())) {
                endCandidacy("the election timed out");
                startElection(new Candidate(false, null, false));
            }
            publish();
        });
    }

    private void lead(Leader l, Set<NodeId> nodes) {
        assert core.exec.inExecutor() : "off the partition's executor";
        QuorumLeader leader = l.leader();
        for (NodeId node : nodes) {
            if (!node.equals(core.self)) {
                leader.follower(node);
            }
        }
        leader.tick();
        if (ConfigChange.removedSelf(core, membership, leader)) {
            stepDown("a configuration without this replica committed");
            return;
        }
        MajorityLease lease = leader.lease(MajorityLease.periodFor(electionTimeoutNanos));
        String lost = lease.stepDown(wakeGrace.active(lease.nowNanos()));
        if (lost != null) {
            stepDown(lost);
        }
    }

    private void follow(List<Replica> view) {
        assert core.exec.inExecutor() : "off the partition's executor";
        long now = core.clock.getAsLong();
        following.retryStorage();
        NodeId p = primary;
        Replica live = p == null ? null : Election.replicaOf(view, p);
        if (p != null && live == null) {
            timer.hurry(now, view); // the primary left the view (JGroups saw it go): no need to wait the whole timeout
        }
        // A replica whose storage fails, or whose log lost records its service applied, does not stand: it
        // could not serve as primary (the lost records come back only from a peer that has them).
        if (core.snapshots().installing()) {
            core.snapshots().tick(p);   // it cannot serve as primary before it has the snapshot
            return;
        }
        if (timer.due(now) && core.storageFailedAt() == 0 && core.log.lostTailEnd() == 0
                && !core.draining.getAsBoolean() && membership.counts(core.self)) {
            // neither a draining node (it hands its primaries away) nor a learner (it counts for nothing) stands
            startElection(new Candidate(false, null, false));
            return;
        }
        if (p != null) {
            following.refresh(p, now);
        }
        if (live != null && live.role() == ReplicaRole.PRIMARY && priority > live.priority() && membership.counts(core.self)) {
            priorityHandover.maybeAsk(live, () -> phase instanceof Follower, r -> startElection(new Candidate(true, null, false)));
        }
    }

    /** The replicas of this partition in this node's yellow page. */
    private List<Replica> view() {
        return core.peers.replicas(core.service, core.partition);
    }

    /**
     * Starts the election round {@code candidacy}, which {@link Candidacies} carries out: a pre-vote
     * (which changes nothing anywhere) and, if a majority would vote for this replica, the vote at a
     * new, persisted epoch. A transfer (after a handover, or an operator's promote) skips the pre-vote
     * and asks voters to ignore a primary heard lately.
     */
    private void startElection(Candidate candidacy) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (phase instanceof Closed) {
            return; // a take-over's or handover's answer that came after the close: its log may be closed
        }
        endCandidacy("a new round started"); // one round at a time
        enter(candidacy);
        timer.restart(core.clock.getAsLong(), view()); // the next round starts a timeout from now if this one fails
        candidacies.start(candidacy);
    }

    /** Ends the current candidacy, if any, and answers the operator who asked for it. */
    private void endCandidacy(String why) {
        if (phase instanceof Candidate candidacy) {
            enter(new Follower());
            candidacy.answerPromote(false, why, core.log.epoch());
        }
    }

    /** {@code candidacy}, still this replica's phase, won the election {@code won} describes: it leads that epoch. */
    private void becomePrimary(Candidate candidacy, Candidacy.Won won) {
        assert core.exec.inExecutor() : "off the partition's executor";
        assert phase == candidacy && core.log.epoch() == won.epoch() : name + ": " + phase + " won " + won;
        QuorumLeader leader = new QuorumLeader(core, new QuorumLeader.Host() {
            @Override
            public boolean leads(long e) {
                return phase instanceof Leader && core.log.epoch() == e;
            }

            @Override
            public void newerEpoch(long e, NodeId from) {
                adoptEpoch(e, from + " is at epoch " + e, () -> { });
            }

            @Override
            public void stepDown(String why) {
                MajorityReplica.this.stepDown(why);
            }

            @Override
            public void publish() {
                MajorityReplica.this.publish();
            }
        }, candidacies.leaderOf(won), electionTimeoutNanos);
        enter(new Leader(leader, candidacy.pinOnWin(), null, null));
        primary = core.self;
        following.leads();
        Set<NodeId> members = new HashSet<>(candidacies.others()); // whom the new primary sends its no-op
        logger.info("{}: became primary at epoch {} with votes of {}; log end {}, applied {}", name, won.epoch(),
                won.voters(), core.log.lastLsn(), core.applied);
        long sincePrimary = timer.sincePrimary(core.clock.getAsLong());
        if (sincePrimary >= 0) { // it followed a primary: a fail-over (or handover) as seen here
            core.tookOver.accept(sincePrimary);
        }
        leader.start(members);
        publish();
        candidacy.answerPromote(true, "", core.log.epoch());
    }

    private void promote(Consumer<Object> reply) {
        String refusal = Election.promoteRefusal(candidacies.promotion());
        if (refusal != null) {
            reply.accept(new PromoteReply(phase instanceof Leader, refusal, core.log.epoch()));
            return;
        }
        logger.warn("{}: an operator asked for an election now (a majority must still vote)", name);
        startElection(new Candidate(true, reply, false));
    }

    /**
     * Persists a newer epoch; then a leader or candidate of an older one becomes a follower, and
     * {@code then} runs. As a task's last step ({@link ReplicaCore#persistEpoch}).
     */
    private void adoptEpoch(long epoch, String why, Runnable then) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (epoch <= core.log.epoch()) {
            then.run();
            return;
        }
        core.persistEpoch(epoch, () -> {
            primary = null;
            stepDown(why);
            endCandidacy(why);
            following.newEpoch();
            then.run();
        });
    }

    /**
     * Stops leading: the writes waiting to commit may still commit under the next primary (a majority
     * may have logged them), so they are answered as of unknown outcome; the client retries them with
     * their request ids, which every replica's log recognises.
     */
    private void stepDown(String why) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (!(phase instanceof Leader l)) {
            return;
        }
        logger.warn("{}: [NEP-REPL-004] stepping down as primary of epoch {}: {}", name, core.log.epoch(), why);
        enter(new Follower());
        ConfigChange.abandon(l.change(), "it stopped being the primary (" + why + ")");
        l.leader().abandon(requestId -> ResponseMessage.error(requestId, Status.IN_DOUBT, core.self
                + " stopped being the primary of " + core.service + "#" + core.partition + " (" + why
                + ") before the write committed; it may still commit: retry with the same request id"));
        if (primary != null && primary.equals(core.self)) {
            primary = null;
        }
        timer.steppedDown(core.clock.getAsLong(), view()); // a primary's last word is its own: a fail-over starts here
        following.steppedDown();
        publish();
    }

    /** Moves to {@code next}, the only way the phase changes ({@link MajorityPhase} has the table). */
    private void enter(MajorityPhase next) {
        assert core.exec.inExecutor() : "off the partition's executor";
        assert phase.mayBecome(next) : name + ": " + phase + " -> " + next;
        phase = next;
    }

    // ---------------------------------------------------------------- freshness and the published role

    @Override
    public boolean fresh() {
        if (stalenessNanos == 0) {
            return true;
        }
        long now = core.clock.getAsLong();
        if (phase instanceof Leader) { // read off the executor: a stale answer only refuses or allows one read
            return now - stalenessNanos - leaderFreshAsOf < 0;
        }
        return following.fresh(now);
    }

    /** Level 3 primary: when a majority last followed it (written on the executor, read by {@link #fresh()}). */
    private volatile long leaderFreshAsOf = Long.MIN_VALUE / 2;

    private ReplicaRole role() {
        if (phase instanceof Leader) {
            return ReplicaRole.PRIMARY;
        }
        boolean serves = (phase instanceof Follower || phase instanceof Candidate) && following.matched()
                && core.storageFailedAt() == 0;
        return serves ? ReplicaRole.SECONDARY : ReplicaRole.RECOVERING;
    }

    private void publish() {
        if (phase instanceof Leader l) {
            long since = l.leader().majoritySince();
            leaderFreshAsOf = since == Long.MIN_VALUE ? Long.MIN_VALUE / 2 : since;
        }
        core.publish(role(), phase instanceof Leader ? versions.boundVersion(core.clock.getAsLong()) : 0);
    }

    /** Who counts towards this partition's majority, as this replica sees it. */
    Membership membership() { return membership; }

    @Override
    public ReplicaCore core() {
        return core;
    }

    @Override
    public void close() {
        core.exec.execute(() -> {
            MajorityPhase was = phase;
            if (was instanceof Closed) {
                return;
            }
            enter(new Closed()); // the votes of a round under way change nothing more (unhost closes the log next)
            if (was instanceof Leader l) {
                ConfigChange.abandon(l.change(), "shutting down");
                l.leader().abandon(requestId -> ResponseMessage.error(requestId, Status.IN_DOUBT, core.self
                        + " is shutting down before the write committed; it may still commit under the next primary"));
            } else if (was instanceof Candidate candidacy) {
                candidacy.answerPromote(false, "shutting down", core.log.epoch());
            }
        });
    }
}
