package io.neptune.server.internal.replication.runtime;

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
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A replica core on an in-memory log whose service's writes take a set time of the core's manual
 * clock: the first write {@code firstNanos} (as one that waited for its database), each after it
 * {@code nextNanos}. For tests of how applying is sliced; no peers, no timer.
 */
final class TimedWrites {
    final long[] now = {0};
    final InMemoryLog log = new InMemoryLog("n1");
    final ReplicaCore core;

    /** A core whose executor runs each task at once, on the caller's thread. */
    TimedWrites(Path dir, long firstNanos, long nextNanos) {
        this(dir, firstNanos, nextNanos, Runnable::run);
    }

    /**
     * A core whose serial executor hands its runs to {@code pool}; a run yields after 5 ms of the
     * manual clock, as on the wall clock, so each slice of applying that spends more ends one.
     */
    TimedWrites(Path dir, long firstNanos, long nextNanos, Executor pool) {
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
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.shutdown(); // nothing here runs on it
        core = new CoreSetup("svc", 0, NodeId.of("n1")).storage(log, dir).app(timed).peers(new Alone(NodeId.of("n1")))
                .executors(new SerialExecutor(pool, "n1", () -> now[0]), timer).clock(() -> now[0]).build();
    }

    /** Write {@code lsn} of epoch 1, its payload unique to it. */
    static LogRecord write(long lsn) {
        return new LogRecord(lsn, 1, RecordKind.WRITE, new RequestId(1, lsn), "", 0, "put",
                ("w" + lsn).getBytes(StandardCharsets.UTF_8));
    }

    /** Puts writes 1 to {@code count} in the log, durable. */
    TimedWrites logged(int count) {
        for (int lsn = 1; lsn <= count; lsn++) {
            log.append(write(lsn));
        }
        log.force();
        core.durable = count;
        return this;
    }

    /** The peers of a replica with none: it calls nobody. */
    record Alone(NodeId self) implements Peers {
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
