package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.runtime.PeerMessages.PromoteReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.runtime.PeerMessages.StatusRequest;
import io.neptune.server.internal.replication.protocol.Election;
import io.neptune.server.internal.replication.protocol.FailStopElection;
import io.neptune.server.internal.replication.protocol.Ready;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fail-stop election (and an operator's promote) of a {@link PrimaryBackupReplica}, carried out:
 * its {@link FailStopElection} decides whether to stand, which answers belong to the round under way,
 * who wins and at which epoch; this driver asks the rivals for their status, feeds their answers back,
 * logs, answers the operator, and hands what concerns the replica's phase (standing, the round over,
 * becoming primary) to its {@link Host}, which keeps the round under way in its
 * {@link PrimaryBackupPhase.Electing} phase.
 *
 * <p>Thread-safety: confined to the partition's serial executor.
 */
final class Elections {
    private static final Logger logger = LoggerFactory.getLogger(Elections.class);
    /** How long a candidate waits for a rival's status: one that does not answer by then counts as silent. */
    private static final long STATUS_TIMEOUT_MILLIS = TimeUnit.SECONDS.toMillis(1);

    /** The replica whose election this is: its phase, the primary it last heard from, and what it carries out. */
    interface Host {
        /** The replica's phase: the round under way is its {@link PrimaryBackupPhase.Electing}'s. */
        PrimaryBackupPhase phase();

        /** The replica this one last heard from as primary, or null. */
        @Nullable NodeId primary();

        /** Carries out a decision on the replica's phase: {@link Ready.Stand}, {@link Ready.RoundOver}, {@link Ready.BecomePrimary}. */
        void decided(Ready.Effect effect);
    }

    private final ReplicaCore core;
    private final FailStopElection election;
    private final PrimaryPipeline pipeline;
    private final Host host;
    private final FailStopElection.View view = new ReplicaView();

    /** The election of the replica over {@code core} decided by {@code election}, leading through {@code pipeline}. */
    Elections(ReplicaCore core, FailStopElection election, PrimaryPipeline pipeline, Host host) {
        this.core = core;
        this.election = election;
        this.pipeline = pipeline;
        this.host = host;
    }

    /** A tick of the replica, which sees {@code replicas} and no live primary: it may stand. */
    void tick(List<Replica> replicas) {
        carryOut(election.tick(standsFrom(host.phase()), replicas, view), Elections::noOperator);
    }

    /** The phase an election would start from, as {@link FailStopElection} tells them apart. */
    private static FailStopElection.From standsFrom(PrimaryBackupPhase phase) {
        if (phase instanceof PrimaryBackupPhase.Secondary) {
            return FailStopElection.From.SECONDARY;
        }
        if (phase instanceof PrimaryBackupPhase.Recovering) {
            return FailStopElection.From.RECOVERING;
        }
        return FailStopElection.From.NEITHER;
    }

    /** An operator's promote: answered with {@code reply} at once if refused, else once the new primary is announced. */
    void promote(Consumer<Object> reply) {
        boolean leads = host.phase() instanceof PrimaryBackupPhase.Primary;
        carryOut(election.promote(leads, core.peers.replicas(core.service, core.partition), view), reply);
    }

    /**
     * Answers an operator's promote or take-over with {@code reply} once this primary, at {@code epoch},
     * is announced ({@link PrimaryPipeline#whenAnnounced}), accepted with {@code reason}, or why it is not.
     */
    void answerOnceAnnounced(long epoch, String reason, Consumer<Object> reply) {
        pipeline.whenAnnounced(announced -> reply.accept(announced ? new PromoteReply(true, reason, epoch)
                : new PromoteReply(false, "it stepped down before its secondaries held epoch " + epoch, epoch)));
    }

    /** The round under way: the replica's, if it is {@link PrimaryBackupPhase.Electing}. */
    private FailStopElection.@Nullable Round round() {
        return host.phase() instanceof PrimaryBackupPhase.Electing electing ? electing.round() : null;
    }

    /** Asks every one of {@code rivals} for its status; once all answered or failed, the answers go to round {@code round}. */
    private void ask(List<NodeId> rivals, long round) {
        List<CompletableFuture<ReplicaStatus>> statuses = new ArrayList<>();
        for (NodeId rival : rivals) {
            statuses.add(core.within(core.peers.call(rival, core.request("status",
                    new StatusRequest(core.service, core.partition, true)), ReplicaStatus.class), STATUS_TIMEOUT_MILLIS)
                    .exceptionally(e -> null));
        }
        CompletableFuture.allOf(statuses.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> core.exec.execute(
                () -> answered(round, statuses.stream().map(CompletableFuture::join).toList())));
    }

    private void answered(long round, List<@Nullable ReplicaStatus> statuses) {
        assert core.exec.inExecutor() : "off the partition's executor";
        List<Election.@Nullable Rival> rivals = statuses.stream()
                .map(s -> s == null ? null : new Election.Rival(s.role(), s.epoch(),
                        new Election.Candidate(s.node(), s.lastEpoch(), s.logEnd(), s.priority())))
                .toList();
        carryOut(election.answered(round(), round, rivals, core.peers.replicas(core.service, core.partition), view),
                Elections::noOperator);
    }

    /** Does what the election decided, in its order; what concerns the replica's phase is its host's. */
    private void carryOut(Ready ready, Consumer<Object> operator) {
        for (Ready.Effect effect : ready.effects()) {
            if (effect instanceof Ready.AskStatus ask) {
                ask(ask.rivals(), ask.round());
            } else if (effect instanceof Ready.Warn warn) {
                logger.warn("{}: {}", core.name, warn.message());
            } else if (effect instanceof Ready.AnswerPromote answer) {
                operator.accept(new PromoteReply(answer.ok(), answer.reason(), answer.epoch()));
            } else if (effect instanceof Ready.AnswerOnceAnnounced answer) {
                answerOnceAnnounced(answer.epoch(), answer.reason(), operator);
            } else {
                host.decided(effect);
            }
        }
    }

    /** The operator of a decision no operator asked for: there is none to answer. */
    private static void noOperator(Object answer) {
        throw new IllegalStateException("no operator to answer: " + answer);
    }

    /** This replica as its election reads it: its log, its epoch, the primary it last heard from. */
    private final class ReplicaView implements FailStopElection.View {
        @Override
        public long epoch() {
            return core.log.epoch();
        }

        @Override
        public long lastEpoch() {
            return core.log.lastEpoch();
        }

        @Override
        public long lastLsn() {
            return core.log.lastLsn();
        }

        @Override
        public @Nullable NodeId lastPrimary() {
            return host.primary();
        }

        @Override
        public boolean canLead() {
            return core.log.lostTailEnd() == 0 && !core.snapshots().installing();
        }

        @Override
        public boolean storageFails() {
            return core.storageFailedAt() != 0;
        }
    }
}
