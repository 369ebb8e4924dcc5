package io.neptune.benchmarks.nemesis;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Writes the workload's history as JSON Lines, one operation event per line, in the order the
 * events happened: {@code index} is the line number from 0 and {@code time} never decreases.
 *
 * <pre>{@code
 * {"index":0,"process":3,"type":"invoke","f":"append","key":"k7","partition":3,"value":123,
 *  "time":1520331,"node":null,"version":null,"session":"s3-0","error":null}
 * }</pre>
 *
 * <p>{@code type} is {@code invoke}, then {@code ok}, {@code fail} (did not happen) or {@code info}
 * (may or may not have happened). {@code value} is the appended value for an append, the list read
 * for a read that completed ok, else null. {@code time} is in nanoseconds since the run's origin
 * (the bench passes its {@link System#nanoTime} origin; both JVMs read the same monotonic clock).
 * {@code node} and {@code version} are the serving node and the partition version (the append's
 * LSN, or the applied LSN the read saw) of an ok completion. A process whose operation ended in
 * {@code info} never invokes again: its thread continues as a new process (number + processes)
 * with a new session, as in Jepsen, so a checker can treat the unknown operation as concurrent
 * with everything after it.
 *
 * <p>Each line is flushed as written, so a killed client leaves a readable prefix.
 *
 * <p>Thread-safety: thread-safe; events are numbered and written under one lock.
 */
final class HistoryRecorder implements AutoCloseable {
    /**
     * One line of the history.
     *
     * @param index the line number, from 0
     * @param process the logical process
     * @param type {@code invoke}, {@code ok}, {@code fail} or {@code info}
     * @param f {@code append} or {@code read}
     * @param key the key
     * @param partition the key's partition
     * @param value the appended value, the list read, or null
     * @param time nanoseconds since the run's origin
     * @param node the node that served an ok completion, else null
     * @param version the partition version of an ok completion, else null
     * @param session the client session (one {@code NeptuneHandle}) of the process
     * @param error the failure of a fail or info completion, else null
     */
    record Event(long index, int process, String type, String f, String key, int partition, @Nullable Object value,
            long time, @Nullable String node, @Nullable Long version, @Nullable String session,
            @Nullable String error) {}

    private final ObjectMapper json = new ObjectMapper();
    private final BufferedWriter out;
    private final long originNanos;
    private long next;
    private boolean closed;

    /** Creates (or truncates) {@code file}; event times count from {@code originNanos} on {@link System#nanoTime}. */
    HistoryRecorder(Path file, long originNanos) {
        try {
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the history " + file, e);
        }
        this.originNanos = originNanos;
    }

    /** Records an invocation. */
    void invoke(int process, String f, String key, int partition, @Nullable Long value, String session) {
        write(process, "invoke", f, key, partition, value, null, null, session, null);
    }

    /** Records an ok completion. */
    void ok(int process, String f, String key, int partition, @Nullable Object value, String node, long version,
            String session) {
        write(process, "ok", f, key, partition, value, node, version, session, null);
    }

    /** Records a completion that did not happen ({@code fail}) or may have ({@code info}). */
    void failed(int process, boolean unknown, String f, String key, int partition, @Nullable Long value,
            String session, String error) {
        write(process, unknown ? "info" : "fail", f, key, partition, value, null, null, session, error);
    }

    /** Lines written so far. */
    synchronized long size() {
        return next;
    }

    private synchronized void write(int process, String type, String f, String key, int partition,
            @Nullable Object value, @Nullable String node, @Nullable Long version, String session,
            @Nullable String error) {
        if (closed) {
            return;
        }
        Object copy = value instanceof List<?> list ? List.copyOf(list) : value;
        Event event = new Event(next, process, type, f, key, partition, copy, System.nanoTime() - originNanos, node,
                version, session, error);
        try {
            out.write(json.writeValueAsString(event));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history", e);
        }
        next++;
    }

    /** Flushes and closes the file; later events are dropped. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the history", e);
        }
    }
}
