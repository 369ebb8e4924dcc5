package io.neptune.benchmarks.nemesis.history;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Records the history of a run as client processes invoke and complete operations: stamps each
 * line with the next index and the time, keeps it in memory and appends it to a
 * {@link HistoryWriter}. Index and time are taken under one lock with the write, so the file's
 * order is the order of the index and of the time.
 *
 * <p>Thread-safety: thread-safe; each process calls it from whichever thread runs that process.
 */
public final class HistoryRecorder implements Closeable {
    private final Object lock = new Object();
    private final @Nullable HistoryWriter writer;
    private final LongSupplier nanosSinceStart;
    private final List<Op> ops = new ArrayList<>();  // guarded by lock
    private final Map<Integer, Op> inFlight = new HashMap<>();  // guarded by lock

    /**
     * A recorder.
     *
     * @param writer where lines go as they are recorded; {@code null} to keep them in memory only
     * @param nanosSinceStart the run's clock: nanoseconds since it started, never decreasing
     */
    public HistoryRecorder(@Nullable HistoryWriter writer, LongSupplier nanosSinceStart) {
        this.writer = writer;
        this.nanosSinceStart = requireNonNull(nanosSinceStart, "nanosSinceStart");
    }

    /** A recorder whose run starts now, on {@link System#nanoTime()}. */
    public static HistoryRecorder startingNow(@Nullable HistoryWriter writer) {
        long start = System.nanoTime();
        return new HistoryRecorder(writer, () -> System.nanoTime() - start);
    }

    /** Records that {@code process} invokes an append of {@code element} (unique per key) to {@code key}. */
    public Op invokeAppend(int process, String key, int partition, long element, @Nullable String session) {
        return record(process, (index, time) -> Op.invokeAppend(index, process, key, partition, element, time,
                session));
    }

    /** Records that {@code process} invokes a read of {@code key}. */
    public Op invokeRead(int process, String key, int partition, @Nullable String session) {
        return record(process, (index, time) -> Op.invokeRead(index, process, key, partition, time, session));
    }

    /**
     * Records that {@code invocation} completed OK.
     *
     * @param list the list read, for a read; {@code null} for an append
     * @param node the node that answered, if known
     * @param version the partition version of the response, if any
     */
    public Op ok(Op invocation, @Nullable List<Long> list, @Nullable String node, @Nullable Long version) {
        return record(invocation, (index, time) -> invocation.ok(index, time, list, node, version));
    }

    /** Records that {@code invocation} definitely did not take effect. */
    public Op fail(Op invocation, @Nullable String node, @Nullable String error) {
        return record(invocation, (index, time) -> invocation.fail(index, time, node, error));
    }

    /** Records that {@code invocation} may or may not have taken effect. */
    public Op info(Op invocation, @Nullable String node, @Nullable String error) {
        return record(invocation, (index, time) -> invocation.info(index, time, node, error));
    }

    /** The history recorded so far (operations still in flight count as INFO). */
    public History history() {
        synchronized (lock) {
            return History.of(ops);
        }
    }

    /** Closes the writer, if any. */
    @Override
    public void close() throws IOException {
        if (writer != null) {
            writer.close();
        }
    }

    private Op record(int process, Stamp stamp) {
        synchronized (lock) {
            Op open = inFlight.get(process);
            if (open != null) {
                throw new IllegalStateException("p" + process + " invokes while " + open
                        + " is in flight (expected: one operation per process at a time)");
            }
            Op op = append(stamp);
            inFlight.put(process, op);
            return op;
        }
    }

    private Op record(Op invocation, Stamp stamp) {
        synchronized (lock) {
            if (inFlight.get(invocation.process()) != invocation) {
                throw new IllegalStateException("completion of " + invocation + " (expected: the process's "
                        + "operation in flight, " + inFlight.get(invocation.process()) + ")");
            }
            inFlight.remove(invocation.process());
            return append(stamp);
        }
    }

    private Op append(Stamp stamp) {
        assert Thread.holdsLock(lock);
        Op op = stamp.at(ops.size(), nanosSinceStart.getAsLong());
        ops.add(op);
        if (writer != null) {
            writer.write(op);
        }
        return op;
    }

    /** Makes a line once its index and time are known. */
    private interface Stamp {
        Op at(long index, long time);
    }
}
