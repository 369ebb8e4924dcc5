package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.InMemoryLog;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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

    /**
     * A slice's first write that waited for its database (a lock held by another partition's commit
     * on the same {@code PartitionDatabase}, an fsync of a busy disk) does not end the slice: the
     * writes behind it run in the same batch, for as long as that write took, up to 50 ms. Before, the
     * wait used up the 5 ms slice, so a replica applied one write per slice and per commit: a restarted
     * one under a steady load took 17 s to catch up 140 writes (RollingRestartIT's node logs), and
     * live followers flapped between SECONDARY and RECOVERING.
     */
    @Test
    void aFirstWriteThatWaitedForItsDatabaseDoesNotEndTheSliceAfterOneWrite(@TempDir Path dir) {
        ReplicaCore core = new TimedWrites(dir, TimeUnit.MILLISECONDS.toNanos(150), TimeUnit.MILLISECONDS.toNanos(2))
                .logged(40).core;

        core.applyUpTo(40, ApplySlices.APPLY_SLICE_NANOS);

        assertThat(core.applied).as("writes applied in one slice whose first write waited 150 ms, then 2 ms each")
                .isBetween(21L, 30L);
    }

    @Test
    void aSliceWhoseWritesDidNotWaitStaysFiveMilliseconds(@TempDir Path dir) {
        ReplicaCore core = new TimedWrites(dir, TimeUnit.MILLISECONDS.toNanos(2), TimeUnit.MILLISECONDS.toNanos(2))
                .logged(40).core;

        core.applyUpTo(40, ApplySlices.APPLY_SLICE_NANOS);

        assertThat(core.applied).as("writes of 2 ms applied in one 5 ms slice").isBetween(3L, 4L);
    }

    /** A replica core whose node is closing: its timer shut down. */
    private static ReplicaCore closing(Path dir) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.shutdown();
        return new CoreSetup("svc", 0, NodeId.of("n1")).storage(new InMemoryLog("n1"), dir)
                .app(new SimService(new SimHistory(true), "n1", false)).peers(new TimedWrites.Alone(NodeId.of("n1")))
                .executors(new SerialExecutor(Runnable::run, "n1"), timer).build();
    }
}
