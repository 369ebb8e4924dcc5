package io.neptune.server.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Durable whole-file replacement: a reader sees the old content or the new, never a mix. */
final class AtomicFiles {
    private AtomicFiles() {}

    /**
     * Replaces {@code target} with {@code content}: writes a sibling {@code .tmp} file, forces it,
     * renames it over {@code target} atomically and forces the directory so the rename survives a
     * power loss.
     */
    static void write(Path target, byte[] content) throws IOException {
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
        forceDirectory(target.toAbsolutePath().getParent());
    }

    /** The temporary file {@link #write} uses for {@code target}; a leftover one is garbage. */
    static Path temporary(Path target) {
        return target.resolveSibling(target.getFileName() + ".tmp");
    }

    /**
     * Creates {@code directory} and any missing parents, and forces each new entry into its parent
     * so that the directories survive a power loss.
     */
    static void createDirectories(Path directory) throws IOException {
        Path absolute = directory.toAbsolutePath();
        Path existing = absolute;
        while (existing != null && !Files.isDirectory(existing)) {
            existing = existing.getParent();
        }
        Files.createDirectories(absolute);
        for (Path parent = absolute.getParent(); parent != null && existing != null && parent.startsWith(existing);
                parent = parent.getParent()) {
            forceDirectory(parent);
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
