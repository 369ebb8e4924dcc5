package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.log.InMemoryLog;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaCoreTest {
    /**
     * A replica's task may still ask a peer while its node closes, after the node's timer shut down:
     * the call fails as timed out, and the task goes on (the timer's RejectedExecutionException killed
     * the pool thread: SecurityIT's background-failure check caught it once call timeouts moved onto
     * the replica's timer).
     */
    @Test
    void aCallMadeWhileTheNodeClosesFailsAsTimedOutInsteadOfThrowing(@TempDir Path dir) {
        ReplicaCore core = closing(dir);

        CompletableFuture<Object> call = core.within(new CompletableFuture<>(), 1000);

        assertThat(call).isCompletedExceptionally();
        assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class).hasMessageContaining("closing");
    }

    /**
     * A level-3 read that must wait for a version, arriving while its node closes after the node's
     * timer shut down, is answered "not reached" (the client goes to another replica) instead of
     * throwing the timer's RejectedExecutionException into the request path.
     */
    @Test
    void aReadWaitingForAVersionWhileTheNodeClosesIsAnsweredNotReachedInsteadOfThrowing(@TempDir Path dir) {
        ReplicaCore core = closing(dir);

        CompletableFuture<Boolean> reached = core.awaitVersion(5, 1000);

        assertThat(reached).isCompletedWithValue(false);
    }

    /** A replica core whose node is closing: its timer shut down. */
    private static ReplicaCore closing(Path dir) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.shutdown();
        return new CoreSetup("svc", 0, NodeId.of("n1")).storage(new InMemoryLog("n1"), dir)
                .app(new SimService(new SimHistory(true), "n1", false)).peers(new Alone(NodeId.of("n1")))
                .executors(new SerialExecutor(Runnable::run, "n1"), timer).build();
    }

    /** The peers of a replica with none: it calls nobody. */
    private record Alone(NodeId self) implements Peers {
        @Override
        public List<Replica> replicas(String service, int partition) {
            return List.of();
        }

        @Override
        public <T> CompletableFuture<T> call(NodeId node, PeerRequest request, Class<T> replyType) {
            return CompletableFuture.failedFuture(new IllegalStateException("no peer " + node));
        }

        @Override
        public void announce() {
        }
    }
}
