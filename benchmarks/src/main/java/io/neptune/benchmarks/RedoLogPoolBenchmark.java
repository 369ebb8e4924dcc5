package io.neptune.benchmarks;

import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.LogWriterPool;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.RedoLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * REDO log appends to many logs at once, by the number of threads that write them: 64 logs (a node's
 * partitions), one appender thread per log that appends a 128-byte record and waits until it is
 * durable, as 64 partitions with one write in flight each. {@code per-log} gives each log a writer
 * thread of its own (how a node wrote its logs before the shared pool); a number is the size of one
 * {@link LogWriterPool} shared by all 64. With one write in flight per log there is nothing to batch
 * within a log, so this is the worst case for a small pool: its size bounds the fsyncs in flight.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
@Threads(RedoLogPoolBenchmark.LOGS)
public class RedoLogPoolBenchmark {
    static final int LOGS = 64;
    private static final byte[] PAYLOAD = new byte[128];

    /** The 64 logs and the pool (or none) that writes them, in fresh directories under the working directory. */
    @State(Scope.Benchmark)
    public static class Logs {
        @Param({"per-log", "2", "4", "8", "16"})
        public String writers;

        @Param({"group"})
        public String policy;

        Path directory;
        final List<RedoLog> logs = new ArrayList<>();
        @Nullable LogWriterPool pool;
        final AtomicInteger nextLog = new AtomicInteger();

        @Setup(Level.Trial)
        public void open() throws IOException {
            directory = Files.createTempDirectory(Path.of(System.getProperty("user.dir")), "redo-pool-bench-");
            FsyncPolicy fsync = FsyncPolicy.ofConfigName(policy);
            if (!writers.equals("per-log")) {
                pool = new LogWriterPool("bench-log-writer", Integer.parseInt(writers));
            }
            for (int i = 0; i < LOGS; i++) {
                Path log = directory.resolve("log-" + i);
                logs.add(pool == null ? RedoLog.open(log, fsync) : RedoLog.open(log, fsync, pool, RedoLog.REQUEST_ID_CAPACITY));
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            logs.forEach(RedoLog::close);
            if (pool != null) {
                pool.close();
            }
            RedoLogAppendBenchmark.deleteTree(directory);
        }
    }

    /** The log of one appender thread. */
    @State(Scope.Thread)
    public static class Appender {
        RedoLog log;

        @Setup(Level.Trial)
        public void pick(Logs logs) {
            log = logs.logs.get(logs.nextLog.getAndIncrement() % LOGS);
        }
    }

    @Benchmark
    public void append(Appender appender) {
        RedoLog log = appender.log;   // one appender per log: consecutive LSNs without a lock
        log.append(new LogRecord(log.lastLsn() + 1, 0, RecordKind.WRITE, RequestId.random(), "", 0, "put", PAYLOAD))
                .join();
    }
}
