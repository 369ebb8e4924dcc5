package io.neptune.server.internal.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a level-1 (write-anywhere) replica's log no longer shows after a checkpoint or a snapshot:
 * per origin, the highest write sequence below the log's start (dropped, or held by the installed
 * snapshot). A restarted replica starts counting each origin's writes from here, so it neither takes
 * a dropped write again nor gives one of its own sequence numbers out twice.
 *
 * <p>Kept in the file {@value #FILE} next to the log, one {@code origin sequence} line each, replaced
 * atomically and forced. It is written before the records go (a crash in between leaves it ahead of
 * the log's start, and each origin's count is the larger of the two: both are true).
 *
 * <p>Thread-safety: stateless; callers serialize writes to one directory.
 */
public final class OriginBase {
    /** The file's name in the log directory. */
    public static final String FILE = "origins";
    /** The file of {@link #readOwnFloor} in the log directory. */
    public static final String OWN_FLOOR_FILE = "own-floor";

    private OriginBase() {}

    /** The sequences recorded in {@code logDirectory}; empty if none were (the log was never cut). */
    public static Map<String, Long> read(Path logDirectory) {
        Path file = logDirectory.resolve(FILE);
        if (!Files.exists(file)) {
            return new TreeMap<>();
        }
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The highest sequence of its own a level-1 replica had given out when it last began to install a
     * snapshot (file {@value #OWN_FLOOR_FILE}), or 0: the snapshot may predate some of those writes, and
     * the replica must log them again (its source holds them) before it numbers new ones.
     */
    public static long readOwnFloor(Path logDirectory) {
        Path file = logDirectory.resolve(OWN_FLOOR_FILE);
        if (!Files.exists(file)) {
            return 0;
        }
        try {
            return Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + ": " + e.getMessage() + " (expected: a sequence number)", e);
        }
    }

    /** Durably records {@code floor} ({@link #readOwnFloor}). */
    public static void writeOwnFloor(Path logDirectory, long floor) {
        try {
            AtomicFiles.write(logDirectory.resolve(OWN_FLOOR_FILE), (floor + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + logDirectory.resolve(OWN_FLOOR_FILE), e);
        }
    }

    /** Durably replaces the sequences recorded in {@code logDirectory} with {@code base}. */
    public static void write(Path logDirectory, Map<String, Long> base) {
        try {
            AtomicFiles.write(logDirectory.resolve(FILE), encode(base).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + logDirectory.resolve(FILE), e);
        }
    }

    /** {@code base} as text: one {@code origin sequence} line per origin, in origin order. */
    public static String encode(Map<String, Long> base) {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(base).forEach((origin, seq) -> text.append(origin).append(' ').append(seq).append('\n'));
        return text.toString();
    }

    /**
     * The sequences {@link #encode} wrote.
     *
     * @throws IllegalArgumentException naming the line that is not {@code origin sequence}
     */
    public static Map<String, Long> parse(String text) {
        Map<String, Long> base = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            long seq;
            try {
                seq = space > 0 ? Long.parseLong(line.substring(space + 1)) : -1;
            } catch (NumberFormatException e) {
                seq = -1;
            }
            if (seq < 0) {
                throw new IllegalArgumentException("line '" + line + "' (expected: '<origin> <sequence>')");
            }
            base.put(line.substring(0, space), seq);
        }
        return base;
    }
}
