package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.log.InMemoryLog;
import io.neptune.server.internal.replication.runtime.PeerMessages.Vote;
import io.neptune.server.internal.replication.runtime.PeerMessages.VoteReply;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code majority} replica writes a new epoch off its replication thread (the log's writer forces
 * the meta file), and nothing that claims the epoch leaves it before the write is durable. One
 * replica, driven by hand: its log holds each epoch write until the test runs it, and its executor's
 * pool is a queue the test drains on this thread.
 */
class MajorityEpochDurabilityTest {
    private static final InetSocketAddress NOWHERE = InetSocketAddress.createUnresolved("nowhere", 1);
    private static final List<NodeId> NODES = List.of(NodeId.of("a"), NodeId.of("b"), NodeId.of("c"));

    private final Queue<Runnable> pool = new ArrayDeque<>();
    /** The epoch writes the log was asked for and the test has not run yet. */
    private final Queue<Runnable> epochWrites = new ArrayDeque<>();
    /** The ballots this replica sent as a candidate. */
    private final List<Vote> ballots = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private InMemoryLog log;
    private MajorityReplica replica;

    @BeforeEach
    void start(@TempDir Path dir) {
        log = new InMemoryLog("a");
        log.writeEpochsThrough(epochWrites::add);
        ReplicaCore core = new CoreSetup("svc", 0, NODES.get(0)).storage(log, dir)
                .app(new SimService(new SimHistory(true), "a", false)).peers(new ThreeReplicas(ballots))
                .executors(new SerialExecutor(pool::add, "svc#0@a"), timer).build();
        replica = new MajorityReplica(core, new ReplicaSettings(0, 3, Duration.ofSeconds(2), null, false));
        replica.start();
        runPool();
    }

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    /**
     * A vote is answered only once its epoch survives a crash: had the grant gone out first, a crash
     * before the write would let the voter grant the same epoch to another candidate after its restart,
     * and that epoch could have two primaries. A second candidate's ballot of that epoch, arriving while
     * the write is under way, waits behind it and is refused.
     */
    @Test
    void aVoteIsGrantedOnlyOnceItsEpochIsDurableAndASecondBallotOfThatEpochIsRefused() {
        List<Object> toB = new ArrayList<>();
        List<Object> toC = new ArrayList<>();

        replica.onPeerMessage("vote", new Vote("svc", 0, "b", 1, 0, 0, false, false), toB::add);
        replica.onPeerMessage("vote", new Vote("svc", 0, "c", 1, 0, 0, false, false), toC::add);
        runPool();

        assertThat(epochWrites).as("the epoch write the grant waits for").hasSize(1);
        assertThat(log.epoch()).isZero();
        assertThat(toB).as("no grant before the epoch is durable").isEmpty();
        assertThat(toC).as("the second ballot waits behind the write").isEmpty();
        assertThat(pool).as("no pool thread is held meanwhile").isEmpty();

        epochWrites.remove().run();
        runPool();

        assertThat(log.epoch()).isEqualTo(1);
        assertThat(toB).singleElement().isInstanceOfSatisfying(VoteReply.class, r -> assertThat(r.granted()).isTrue());
        assertThat(toC).singleElement().isInstanceOfSatisfying(VoteReply.class, r -> assertThat(r.granted()).isFalse());
        assertThat(epochWrites).isEmpty();
    }

    /**
     * A candidate asks for votes only once its own vote, the new epoch, is durable: ballots sent first
     * could win it an epoch that a crash would then let it vote for again, for someone else.
     */
    @Test
    void aCandidateSendsItsBallotsOnlyOnceItsNewEpochIsDurable() {
        List<Object> toOperator = new ArrayList<>();

        replica.onPeerMessage("promote", new PeerMessages.Promote("svc", 0), toOperator::add); // stands at once
        runPool();

        assertThat(epochWrites).hasSize(1);
        assertThat(ballots).as("no ballot before the epoch is durable").isEmpty();

        epochWrites.remove().run();
        runPool();

        assertThat(log.epoch()).isEqualTo(1);
        assertThat(ballots).extracting(Vote::node, Vote::epoch).containsExactly(
                org.assertj.core.groups.Tuple.tuple("a", 1L), org.assertj.core.groups.Tuple.tuple("a", 1L));
    }

    private void runPool() {
        for (Runnable task = pool.poll(); task != null; task = pool.poll()) {
            task.run();
        }
    }

    /** Replicas a, b and c, all secondaries at epoch 0; calls to them are never answered, ballots recorded. */
    private static final class ThreeReplicas implements Peers {
        private final List<Vote> ballots;

        ThreeReplicas(List<Vote> ballots) {
            this.ballots = ballots;
        }
        @Override
        public NodeId self() {
            return NODES.get(0);
        }

        @Override
        public List<Replica> replicas(String service, int partition) {
            return NODES.stream()
                    .map(n -> new Replica(n, NOWHERE, NOWHERE, 0, ReplicaRole.SECONDARY, 0, 0, 0, 0, 0, 0, false))
                    .toList();
        }

        @Override
        public <T> CompletableFuture<T> call(NodeId node, PeerRequest request, Class<T> replyType) {
            Object message = request.message();
            if (message instanceof Vote ballot) {
                ballots.add(ballot);
            }
            return new CompletableFuture<>();
        }

        @Override
        public void announce() {
        }
    }
}
