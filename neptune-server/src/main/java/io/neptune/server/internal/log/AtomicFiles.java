package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable whole-file replacement (a reader sees the old content or the new, never a mix) and
 * durable directories.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class AtomicFiles {
    private static final Logger logger = LoggerFactory.getLogger(AtomicFiles.class);
    /** Directories whose entry in their parent (and, up the path, their ancestors' entries) is durable. */
    private static final Set<Path> DURABLE_ENTRIES = ConcurrentHashMap.newKeySet();

    private AtomicFiles() {}

    /**
     * Replaces {@code target} with {@code content}: writes a sibling {@code .tmp} file, forces it,
     * renames it over {@code target} atomically and forces the directory so the rename survives a
     * power loss.
     */
    public static void write(Path target, byte[] content) throws IOException {
        Path tmp = temporary(target);
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(requireNonNull(target.toAbsolutePath().getParent(), "target: a file in a directory"));
    }

    /** The temporary file {@link #write} uses for {@code target}; a leftover one is garbage. */
    static Path temporary(Path target) {
        return target.resolveSibling(target.getFileName() + ".tmp");
    }

    /**
     * Creates {@code directory} and any missing parents, and makes the whole path durable
     * ({@link #forcePath}), so that the directories survive a power loss.
     */
    static void createDirectories(Path directory) throws IOException {
        Files.createDirectories(directory);
        forcePath(directory);
    }

    /**
     * Makes {@code directory}'s own entry, and each of its ancestors' entries, durable: forces every
     * parent directory from {@code directory}'s up to the file system root, except where this
     * process did so already. A directory that another component created without forcing its
     * parent (the node's data directory, a service's directory) would otherwise vanish in a power
     * cut with every log under it. Paths whose entries were made durable are remembered for the
     * life of the process: a directory's entry does not change once durable (directories are never
     * renamed), so each parent is forced once per new child.
     */
    static void forcePath(Path directory) throws IOException {
        Path start = directory.toAbsolutePath().normalize();
        for (Path entry = start; entry.getParent() != null; entry = entry.getParent()) {
            if (DURABLE_ENTRIES.contains(entry)) {
                return;   // its ancestors were made durable when it was
            }
            try {
                forceDirectory(entry.getParent());
            } catch (IOException e) {
                if (entry.equals(start)) {
                    throw e;
                }
                // an ancestor this process may not open (e.g. no read permission): not ours to make durable
                logger.warn("cannot force {} (the entry of {} in it may not survive a power cut): {}",
                        entry.getParent(), entry, e.toString());
            }
            DURABLE_ENTRIES.add(entry);
        }
    }

    /**
     * Forces {@code directory}'s entries (creations, renames, deletions) to the device. Opening a
     * directory for reading works on Linux and macOS, the platforms a node runs on.
     */
    static void forceDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
