package io.neptune.benchmarks.nemesis.history;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Appends history lines to a JSON Lines file, one {@link Op} per line.
 *
 * <p>Thread-safety: thread-safe; {@link #write} serializes callers on one lock and flushes each line
 * to the operating system, so a harness killed mid-run leaves at most a torn last line (which
 * {@link RunFiles#readHistory} ignores). Callers that need the file's order to be the history's
 * index and time order stamp both under the same lock: {@link HistoryRecorder} does.
 */
public final class HistoryWriter implements Closeable {
    private final Object lock = new Object();
    private final Writer out;  // guarded by lock

    /** A writer to {@code out}; closing this closes it. */
    public HistoryWriter(Writer out) {
        this.out = requireNonNull(out, "out");
    }

    /** A writer to a new (or truncated) {@code file}. */
    public static HistoryWriter open(Path file) throws IOException {
        return new HistoryWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
    }

    /**
     * Appends {@code op} as one line and flushes it.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    public void write(Op op) {
        String line = HistoryJson.toLine(op) + "\n";
        synchronized (lock) {
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write history line " + op.index(), e);
            }
        }
    }

    /** Flushes and closes the file; idempotent. */
    @Override
    public void close() throws IOException {
        synchronized (lock) {
            out.close();
        }
    }
}
