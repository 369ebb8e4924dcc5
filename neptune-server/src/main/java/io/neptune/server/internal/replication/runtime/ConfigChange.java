package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.PeerMessages.Reconfigure;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReconfigureReply;
import io.neptune.server.internal.replication.protocol.Election;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One operator's placement change on a {@code majority}-mode primary ({@code docs/protocols/placement.md}):
 * waits until the primary committed a record of its epoch and the latest configuration, makes an
 * implicit replica set explicit first ({@code C0}), waits for a replica being added to catch up,
 * then logs the configuration that adds or removes exactly one voter and answers once it committed.
 * Driven by the primary's ticks; at most one runs per partition.
 *
 * <p>Thread-safety: confined to the partition's executor.
 */
final class ConfigChange {
    private static final Logger logger = LoggerFactory.getLogger(ConfigChange.class);

    private final ReplicaCore core;
    private final Membership membership;
    private final QuorumLeader leader;
    private final long epoch;
    private final Reconfigure request;
    private final long deadlineNanos;
    private @Nullable Consumer<Object> reply;
    /** The LSN of a configuration this change logged and waits to see committed, or 0. */
    private long pending;
    /** Whether the configuration that makes the change (not {@code C0}) was logged. */
    private boolean finalLogged;
    /** A removal: the commit point the voters left must reach first (set at its first try), or 0. */
    private long removeFrom;

    private ConfigChange(ReplicaCore core, Membership membership, QuorumLeader leader, Reconfigure request,
            Consumer<Object> reply) {
        this.core = core;
        this.membership = membership;
        this.leader = leader;
        this.epoch = core.log.epoch();
        this.request = request;
        this.reply = reply;
        this.deadlineNanos = core.clock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(Math.max(1, request.timeoutMillis()));
    }

    /**
     * Starts the change {@code request} asks for on the primary {@code leader}, which runs no other;
     * returns it. It may answer at once, and its first step may step the primary down.
     */
    static ConfigChange start(ReplicaCore core, Membership membership, QuorumLeader leader, Reconfigure request,
            Consumer<Object> reply) {
        ConfigChange change = new ConfigChange(core, membership, leader, request, reply);
        change.tick(core.peers.replicas(core.service, core.partition));
        return change;
    }

    /**
     * Refuses a change ({@code NEP-PLACE-002}: no primary here, or another change under way), telling
     * the operator the voters of the latest configuration.
     */
    static void refuse(Membership membership, String why, Consumer<Object> reply) {
        Membership.Config latest = membership.latest();
        reply.accept(new ReconfigureReply(false, "NEP-PLACE-002 " + why, latest == null ? List.of()
                : List.copyOf(latest.voters())));
    }

    /** Whether a configuration without this primary committed: then it steps down (Raft §4.2.2). */
    static boolean removedSelf(ReplicaCore core, Membership membership, QuorumLeader leader) {
        Membership.Config latest = membership.latest();
        return membership.explicit() && !membership.counts(core.self) && latest != null
                && leader.commitLsn() >= latest.lsn();
    }

    /** The message type of {@code method} in majority mode's peer protocol (the placement change's included). */
    static Class<?> majorityMessageType(String method) {
        return switch (method) {
            case "replicate" -> PeerMessages.Replicate.class;
            case "status" -> PeerMessages.StatusRequest.class;
            case "vote" -> PeerMessages.Vote.class;
            case "readIndex" -> PeerMessages.ReadIndex.class;
            case "join" -> PeerMessages.Join.class;
            case "handover" -> PeerMessages.Handover.class;
            case "demote" -> PeerMessages.Demote.class;
            case "promote" -> PeerMessages.Promote.class;
            case "takeOver" -> PeerMessages.TakeOver.class;
            case "reconfigure" -> Reconfigure.class;
            default -> Snapshots.messageType(method); // throws for a method that is not a replication one
        };
    }

    /** Whether it answered. */
    boolean done() {
        return reply == null;
    }

    /** Makes progress; answers when it is done or the deadline passed. */
    void tick(List<Replica> view) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (done()) {
            return;
        }
        if (pending > 0) {
            return; // answered by the commit (or abandon) of the pending configuration
        }
        Membership.Config latest = membership.latest();
        if (!leader.committedOwnEpoch() || (latest != null && leader.commitLsn() < latest.lsn())) {
            expireIf("NEP-PLACE-002 the primary has not committed its epoch's first record or the last configuration"
                    + " yet");
            return;
        }
        if (!membership.explicit()) {
            SortedSet<String> voters = membership.implicitVoters(view);
            if (voters == null) {
                answer(false, "NEP-PLACE-003 fewer replicas were ever seen than 'replicas:' says: start the missing"
                        + " replica first (its id must be known to write the configuration down)");
                return;
            }
            voters.remove(request.add()); // a learner in the view is no voter yet: it is added below, once caught up
            log(voters, false);
            return;
        }
        SortedSet<String> voters = new TreeSet<>(latest == null ? List.of() : latest.voters());
        if (!request.add().isEmpty()) {
            add(voters);
        } else if (!request.remove().isEmpty()) {
            remove(voters);
        } else {
            answer(true, "the replica set is explicit");
        }
    }

    private void add(SortedSet<String> voters) {
        if (voters.contains(request.add())) {
            answer(true, request.add() + " is a voter");
            return;
        }
        long match = leader.match(NodeId.of(request.add()));
        if (match < leader.commitLsn()) {
            expireIf("NEP-PLACE-004 " + request.add() + " did not catch up in time (its log matches up to "
                    + Math.max(match, 0) + ", the commit point is " + leader.commitLsn() + "); it stays a learner:"
                    + " retry, or remove it");
            return;
        }
        voters.add(request.add());
        log(voters, true);
    }

    private void remove(SortedSet<String> voters) {
        if (!voters.contains(request.remove())) {
            answer(true, request.remove() + " is no voter");
            return;
        }
        if (voters.size() == 1) {
            answer(false, "NEP-PLACE-005 " + request.remove() + " is the last voter of " + core.service + "#"
                    + core.partition + ": add another first");
            return;
        }
        voters.remove(request.remove());
        // etcd's strict reconfiguration check: a configuration whose majority cannot take records now could not
        // commit, and the partition would take no write until a voter down, installing or diverged came back. A
        // voter that answers but refuses records counts as down (it answered; that is not enough).
        List<String> live = voters.stream().filter(v -> leader.takesRecords(NodeId.of(v))).toList();
        int quorum = Election.quorum(voters.size());
        if (live.size() < quorum) {
            answer(false, "NEP-PLACE-009 removing " + request.remove() + " would leave " + voters + ", of whom only "
                    + live + " take records from the primary: not a majority, so the partition would stop taking"
                    + " writes until another voter is back; bring the down voter back, or remove it instead");
            return;
        }
        // ... and a majority of it has what is committed now, or the first write after the change waits for one
        // that is far behind to catch up first
        if (removeFrom == 0) {
            removeFrom = leader.commitLsn();
        }
        List<String> caughtUp = live.stream().filter(v -> NodeId.of(v).equals(core.self)
                || leader.match(NodeId.of(v)) >= removeFrom).toList();
        if (caughtUp.size() < quorum) {
            expireIf("NEP-PLACE-009 removing " + request.remove() + " would leave " + voters + ", of whom only "
                    + caughtUp + " had caught up to LSN " + removeFrom + " in time: wait for the others to catch up"
                    + " (admin replicas), then retry");
            return;
        }
        log(voters, true);
    }

    private void log(SortedSet<String> voters, boolean last) {
        Membership.Config config = new Membership.Config(core.log.lastLsn() + 1, epoch, voters);
        membership.logging(config); // in force from now on, on this replica first
        pending = config.lsn();
        finalLogged = last;
        logger.info("{}: logging configuration {} for an operator's {}", core.name, config, describe());
        leader.appendConfig(config, response -> {
            pending = 0;
            if (response.status() != Status.ALREADY_APPLIED && response.status() != Status.OK) {
                answer(false, "NEP-PLACE-002 the primary stopped leading before configuration " + config
                        + " committed; it may still commit: check 'admin replicas' and retry (retrying is safe): "
                        + response.errorMessage());
            } else if (finalLogged) {
                answer(true, "configuration " + config + " committed");
            }
        });
    }

    private void expireIf(String why) {
        if (core.clock.getAsLong() - deadlineNanos >= 0) {
            answer(false, why);
        }
    }

    /** Abandons {@code change} if there is one ({@link #abandon(String)}); returns null, the change now under way. */
    static @Nullable ConfigChange abandon(@Nullable ConfigChange change, String why) {
        if (change != null) {
            change.abandon(why);
        }
        return null;
    }

    /** Answers now with a refusal: the primary steps down or closes. */
    void abandon(String why) {
        if (pending == 0) {
            answer(false, "NEP-PLACE-002 " + why);
        } // else abandon of the pending record answers
    }

    private void answer(boolean accepted, String reason) {
        Consumer<Object> r = reply;
        if (r == null) {
            return;
        }
        reply = null;
        Membership.Config latest = membership.latest();
        if (accepted) {
            logger.info("{}: {} done: {}", core.name, describe(), reason);
        } else {
            logger.warn("{}: {} refused: {}", core.name, describe(), reason);
        }
        r.accept(new ReconfigureReply(accepted, reason, latest == null ? List.of() : List.copyOf(latest.voters())));
    }

    private String describe() {
        return !request.add().isEmpty() ? "add-replica " + request.add() : !request.remove().isEmpty()
                ? "remove-replica " + request.remove() : "explicit replica set";
    }
}
