package io.neptune.benchmarks;

import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.RedoLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * REDO log append throughput per fsync policy, next to raw {@code write + force} loops on the same
 * disk (issue 12, "group commit": appends with fsync at least 0.8x the raw loop, same run). Each
 * operation appends one 128-byte record and waits until it is durable by the policy:
 *
 * <ul>
 *   <li>{@code append} / {@code rawWriteAndForceConcurrent}: eight threads, as the pipelined writes of
 *       a busy primary, so group commit can share one fsync among several appends (the raw loop's
 *       threads force the same file, and the kernel may share a flush among them too);
 *   <li>{@code appendAlone} / {@code rawWriteAndForce}: one thread, one fsync per record: what the log
 *       adds to an fsync (encoding, the hand-off to its writer thread and back);
 *   <li>{@code appendBatch} / {@code rawBatchWriteAndForce}: one thread logs {@value #BATCH} records and
 *       waits for the last, as a follower logs a replication batch, against one gathering write and one
 *       force of the same bytes. Scores are per record.
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
@Threads(8)
public class RedoLogAppendBenchmark {
    private static final byte[] PAYLOAD = new byte[128];
    static final int BATCH = 64;

    /** One log per trial, in a fresh directory under the working directory (the disk being measured). */
    @State(Scope.Benchmark)
    public static class LogState {
        @Param({"always", "group", "none"})
        public String policy;

        Path directory;
        RedoLog log;
        final Object lsnLock = new Object();

        @Setup(Level.Trial)
        public void open() throws IOException {
            directory = Files.createTempDirectory(Path.of(System.getProperty("user.dir")), "redo-bench-");
            log = RedoLog.open(directory, FsyncPolicy.ofConfigName(policy));
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            log.close();
            deleteTree(directory);
        }

        long iterationForces;
        long iterationLsn;

        @Setup(Level.Iteration)
        public void startIteration() {
            iterationForces = log.forces();
            iterationLsn = log.lastLsn();
        }

        /** Group commit at work: how many appends shared each force in the iteration (none for {@code none}). */
        @TearDown(Level.Iteration)
        public void endIteration() {
            long appends = log.lastLsn() - iterationLsn;
            long forces = log.forces() - iterationForces;
            System.out.printf(Locale.ROOT, "%n%s: %d appends, %d forces, %.2f appends per force%n", policy, appends,
                    forces, forces == 0 ? 0.0 : (double) appends / forces);
        }
    }

    /** A raw file written and forced after every record: what one fsync per write costs on this disk. */
    @State(Scope.Benchmark)
    public static class RawState {
        Path directory;
        FileChannel channel;

        @Setup(Level.Trial)
        public void open() throws IOException {
            directory = Files.createTempDirectory(Path.of(System.getProperty("user.dir")), "raw-bench-");
            channel = FileChannel.open(directory.resolve("raw.log"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            channel.close();
            deleteTree(directory);
        }
    }

    @Benchmark
    public void append(LogState state) {
        CompletableFuture<Void> durable;
        synchronized (state.lsnLock) { // appends need consecutive LSNs, as a partition's primary assigns them
            long lsn = state.log.lastLsn() + 1;
            durable = state.log.append(new LogRecord(lsn, 0, RecordKind.WRITE, RequestId.random(), "", 0, "put",
                    PAYLOAD));
        }
        durable.join();
    }

    @Benchmark
    @Threads(1)
    public void appendAlone(LogState state) {
        append(state);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void appendBatch(LogState state) {
        List<CompletableFuture<Void>> durable;
        synchronized (state.lsnLock) {   // a follower's pattern: one replicate message's records in one step
            long lsn = state.log.lastLsn();
            List<LogRecord> records = new ArrayList<>(BATCH);
            for (int i = 1; i <= BATCH; i++) {
                records.add(new LogRecord(lsn + i, 0, RecordKind.WRITE, RequestId.random(), "", 0, "put", PAYLOAD));
            }
            durable = state.log.appendAll(records);
        }
        durable.get(BATCH - 1).join(); // appends complete in LSN order
    }

    @Benchmark
    @Threads(1)
    public void rawWriteAndForce(RawState state) throws IOException {
        state.channel.write(ByteBuffer.wrap(PAYLOAD));
        state.channel.force(false);
    }

    @Benchmark
    public void rawWriteAndForceConcurrent(RawState state) throws IOException {
        state.channel.write(ByteBuffer.wrap(PAYLOAD));
        state.channel.force(false);
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(BATCH)
    public void rawBatchWriteAndForce(RawState state) throws IOException {
        ByteBuffer[] buffers = new ByteBuffer[BATCH];
        for (int i = 0; i < BATCH; i++) {
            buffers[i] = ByteBuffer.wrap(PAYLOAD);
        }
        state.channel.write(buffers);
        state.channel.force(false);
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
