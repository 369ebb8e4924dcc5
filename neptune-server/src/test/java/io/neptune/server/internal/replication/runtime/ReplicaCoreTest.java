package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.log.InMemoryLog;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
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
        ReplicaCore core = withWrites(dir, 40, TimeUnit.MILLISECONDS.toNanos(150), TimeUnit.MILLISECONDS.toNanos(2));

        core.applyUpTo(40, ApplySlices.APPLY_SLICE_NANOS);

        assertThat(core.applied).as("writes applied in one slice whose first write waited 150 ms, then 2 ms each")
                .isBetween(21L, 30L);
    }

    @Test
    void aSliceWhoseWritesDidNotWaitStaysFiveMilliseconds(@TempDir Path dir) {
        ReplicaCore core = withWrites(dir, 40, TimeUnit.MILLISECONDS.toNanos(2), TimeUnit.MILLISECONDS.toNanos(2));

        core.applyUpTo(40, ApplySlices.APPLY_SLICE_NANOS);

        assertThat(core.applied).as("writes of 2 ms applied in one 5 ms slice").isBetween(3L, 4L);
    }

    /**
     * A replica core with {@code count} durable writes in its log, whose service takes {@code firstNanos}
     * of the core's clock for the first write and {@code nextNanos} for each after it.
     */
    private static ReplicaCore withWrites(Path dir, int count, long firstNanos, long nextNanos) {
        long[] now = {0};
        SimService service = new SimService(new SimHistory(true), "n1", false);
        PartitionService timed = new PartitionService() {
            private boolean first = true;

            @Override
            public ResponseMessage execute(LogRecord record) {
                now[0] += first ? firstNanos : nextNanos;
                first = false;
                return service.execute(record);
            }

            @Override
            public boolean isApplied(long lsn) {
                return service.isApplied(lsn);
            }

            @Override
            public boolean hasCheck() {
                return true;
            }

            @Override
            public Optional<String> digest() {
                return service.digest();
            }
        };
        InMemoryLog log = new InMemoryLog("n1");
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.shutdown(); // nothing here runs on it
        ReplicaCore core = new CoreSetup("svc", 0, NodeId.of("n1")).storage(log, dir).app(timed)
                .peers(new Alone(NodeId.of("n1"))).executors(new SerialExecutor(Runnable::run, "n1"), timer)
                .clock(() -> now[0]).build();
        for (int lsn = 1; lsn <= count; lsn++) {
            log.append(new LogRecord(lsn, 1, RecordKind.WRITE, new RequestId(1, lsn), "", 0, "put",
                    ("w" + lsn).getBytes(StandardCharsets.UTF_8)));
        }
        log.force();
        core.durable = count;
        return core;
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
