package io.neptune.core.internal.tls;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A value read from a few files (a certificate, its key and the trusted authorities; a token), read
 * again when one of them changed, so that they rotate without a restart. The files' attributes
 * (modification time, size, and the file key: a file renamed over another is a new file) are looked
 * at, at most once per {@link #CHECK_INTERVAL_NANOS}, when {@link #current()} is called; when they
 * differ from those of the files the value was read from, the value is read anew.
 *
 * <p>Files that do not load (one half written, or a certificate whose key is not in place yet: an
 * operator replaces the files one rename at a time) leave the value read before in use. The
 * {@link ReloadListener} hears of that once for that state of the files, and the files are read
 * again at every later look until they load.
 *
 * <p>Thread-safety: thread-safe; the {@link Reader} and the listener run under this holder's lock,
 * one at a time.
 *
 * @param <T> what the files hold
 */
public final class ReloadingFiles<T> {
    /** How often, at most, the files are looked at for a change: once a second. */
    public static final long CHECK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Reads the value from the files. */
    @FunctionalInterface
    public interface Reader<T> {
        /**
         * The value the files hold now.
         *
         * @throws ConfigException if a file cannot be read or they do not hold a value
         */
        T read();
    }

    /** Told what a look at changed files found. Every method does nothing unless overridden. */
    public interface ReloadListener<T> {
        /** The files changed and hold {@code value}, which is current from now on. */
        default void reloaded(T value) {}

        /** The files changed but do not load ({@code problem}); the value read before stays current. */
        default void kept(ConfigException problem) {}
    }

    private final Map<String, Path> files;
    private final Reader<T> reader;
    private final ReloadListener<T> listener;
    private final LongSupplier nanoTime;
    private volatile Loaded<T> loaded;
    /** The state of the files the listener last heard would not load, so it hears of it once. */
    // @GuardedBy("this")
    private @Nullable List<Stamp> refused;

    private record Loaded<T>(T value, List<Stamp> stamps, long checkedAt) {}

    /** What tells one version of a file from another. */
    private record Stamp(FileTime modified, long size, @Nullable Object fileKey) {
        /** A file that cannot be read. */
        static final Stamp MISSING = new Stamp(FileTime.fromMillis(0), -1, null);
    }

    private ReloadingFiles(Map<String, Path> files, Reader<T> reader, ReloadListener<T> listener,
            LongSupplier nanoTime) {
        this.files = new LinkedHashMap<>(files);
        this.reader = requireNonNull(reader, "reader");
        this.listener = requireNonNull(listener, "listener");
        this.nanoTime = requireNonNull(nanoTime, "nanoTime");
        List<Stamp> stamps = stamps();
        this.loaded = new Loaded<>(reader.read(), stamps, nanoTime.getAsLong());
    }

    /**
     * Reads the value of {@code files} (each named by its config key, for error messages) now.
     *
     * @throws ConfigException if a file cannot be read or they do not hold a value
     */
    public static <T> ReloadingFiles<T> read(Map<String, Path> files, Reader<T> reader, ReloadListener<T> listener,
            LongSupplier nanoTime) {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("files: none (expected: at least one)");
        }
        return new ReloadingFiles<>(files, reader, listener, nanoTime);
    }

    /** The value to use now: read anew first if it is time to look and the files changed. */
    public T current() {
        Loaded<T> now = loaded;
        long at = nanoTime.getAsLong();
        if (at - now.checkedAt() < CHECK_INTERVAL_NANOS) {
            return now.value();
        }
        synchronized (this) {
            now = loaded;
            if (at - now.checkedAt() < CHECK_INTERVAL_NANOS) {
                return now.value();
            }
            loaded = look(now, at);
            return loaded.value();
        }
    }

    // @GuardedBy("this")
    private Loaded<T> look(Loaded<T> now, long at) {
        List<Stamp> stamps;
        try {
            stamps = stamps();
            if (stamps.equals(now.stamps())) {
                return new Loaded<>(now.value(), now.stamps(), at);
            }
            Loaded<T> changed = new Loaded<>(reader.read(), stamps, at);
            refused = null;
            listener.reloaded(changed.value());
            return changed;
        } catch (ConfigException e) {
            stamps = stampsAsTheyAre();
            if (!stamps.equals(refused)) {
                refused = stamps;
                listener.kept(e);
            }
            return new Loaded<>(now.value(), now.stamps(), at);
        }
    }

    private List<Stamp> stamps() {
        List<Stamp> stamps = new ArrayList<>(files.size());
        for (Map.Entry<String, Path> file : files.entrySet()) {
            try {
                stamps.add(stamp(file.getValue()));
            } catch (IOException e) {
                throw new ConfigException(file.getKey(), "'" + file.getValue() + "' cannot be read ("
                        + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
            }
        }
        return List.copyOf(stamps);
    }

    /** The files' stamps, a file that cannot be read counting as {@link Stamp#MISSING}. */
    private List<Stamp> stampsAsTheyAre() {
        List<Stamp> stamps = new ArrayList<>(files.size());
        for (Path file : files.values()) {
            try {
                stamps.add(stamp(file));
            } catch (IOException e) {
                stamps.add(Stamp.MISSING);
            }
        }
        return List.copyOf(stamps);
    }

    private static Stamp stamp(Path file) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        return new Stamp(attributes.lastModifiedTime(), attributes.size(), attributes.fileKey());
    }

    /** The files, as a list of paths. */
    @Override
    public String toString() {
        return files.values().toString();
    }
}
