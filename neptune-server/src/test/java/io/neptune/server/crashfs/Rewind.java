package io.neptune.server.crashfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One {@link CrashFs#cut}: puts back the last-synced content of every journalled file, then undoes,
 * newest first, every directory change whose directory was not fsynced after it, then clears the
 * state. The journal formats are described at the top of {@code crashfs.c}.
 *
 * <p>Thread-safety: not thread-safe; one use.
 */
final class Rewind {
    private static final byte[] DATA_MAGIC = "CFSDATA1".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA_HEADER = 16;

    private final Path root;
    private final Path state;
    private int files;
    private long bytes;
    private int entries;

    /** A directory change: its type, the directories it changed, and its arguments. */
    private record Op(char type, String dir, String dstDir, long movedInode, String a, String b, String c) {}

    Rewind(Path root, Path state) {
        this.root = root;
        this.state = state;
    }

    CrashFs.Cut run() throws IOException {
        Map<String, Path> byInode = inodes();
        Path data = state.resolve("data");
        if (Files.isDirectory(data)) {
            try (DirectoryStream<Path> journals = Files.newDirectoryStream(data)) {
                for (Path journal : journals) {
                    Path file = byInode.get(journal.getFileName().toString());
                    if (file != null) {
                        restore(journal, file);
                    }
                }
            }
        }
        Path dirops = state.resolve("dirops");
        if (Files.exists(dirops)) {
            undo(parse(Files.readAllBytes(dirops)));
        }
        forget();
        return new CrashFs.Cut(files, bytes, entries);
    }

    /** Drops the journals and the trash: the tree as it is now counts as durable. */
    void forget() throws IOException {
        clear(state.resolve("data"));
        clear(state.resolve("trash"));
        Files.deleteIfExists(state.resolve("dirops"));
    }

    /** Every regular file under the root and in the trash, by "dev-ino" (as the journals name them). */
    private Map<String, Path> inodes() throws IOException {
        Map<String, Path> byInode = new HashMap<>();
        for (Path tree : List.of(root, state.resolve("trash"))) {
            if (!Files.isDirectory(tree)) {
                continue;
            }
            try (Stream<Path> paths = Files.walk(tree)) {
                for (Path path : (Iterable<Path>) paths::iterator) {
                    if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                        byInode.putIfAbsent(inodeOf(path), path);
                    }
                }
            }
        }
        return byInode;
    }

    private static String inodeOf(Path path) throws IOException {
        return Long.toUnsignedString((Long) Files.getAttribute(path, "unix:dev", LinkOption.NOFOLLOW_LINKS)) + "-"
                + Long.toUnsignedString((Long) Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS));
    }

    /** Writes back the saved bytes, newest first, and cuts the file to its synced size. */
    private void restore(Path journal, Path file) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(journal)).order(ByteOrder.LITTLE_ENDIAN);
        if (buffer.remaining() < DATA_HEADER) {
            return;   // created, killed before its header was written: nothing was written through the shim
        }
        byte[] magic = new byte[DATA_MAGIC.length];
        buffer.get(magic);
        if (!java.util.Arrays.equals(magic, DATA_MAGIC)) {
            throw new IOException(journal + ": not a crashfs data journal");
        }
        long synced = buffer.getLong();
        List<long[]> saved = new ArrayList<>();   // offset, length, position in the journal
        while (buffer.remaining() >= 16) {
            long offset = buffer.getLong();
            long length = buffer.getLong();
            if (length > buffer.remaining()) {
                break;   // the process died while saving these bytes: the write they protect never happened
            }
            saved.add(new long[] {offset, length, buffer.position()});
            buffer.position(buffer.position() + (int) length);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (int k = saved.size() - 1; k >= 0; k--) {
                long[] entry = saved.get(k);
                ByteBuffer old = buffer.duplicate().position((int) entry[2]).limit((int) (entry[2] + entry[1]));
                long at = entry[0];
                while (old.hasRemaining()) {
                    at += channel.write(old, at);
                }
                bytes += entry[1];
            }
            if (channel.size() != synced || !saved.isEmpty()) {
                channel.truncate(synced);
                if (channel.size() < synced) {
                    throw new IOException(file + ": " + channel.size() + " bytes after restoring (expected: "
                            + synced + ", its synced size)");
                }
                files++;
            }
        }
    }

    private static List<Op> parse(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        List<Op> ops = new ArrayList<>();
        while (buffer.hasRemaining()) {
            int start = buffer.position();
            try {
                char type = (char) buffer.get();
                String dir = Long.toUnsignedString(buffer.getLong()) + "-" + Long.toUnsignedString(buffer.getLong());
                Op op = switch (type) {
                    case 'S' -> new Op(type, dir, "", 0, "", "", "");
                    case 'C', 'M', 'D' -> new Op(type, dir, "", 0, string(buffer), "", "");
                    case 'U' -> new Op(type, dir, "", 0, string(buffer), string(buffer), "");
                    case 'R' -> {
                        String dstDir = Long.toUnsignedString(buffer.getLong()) + "-"
                                + Long.toUnsignedString(buffer.getLong());
                        long moved = buffer.getLong();
                        yield new Op(type, dir, dstDir, moved, string(buffer), string(buffer), string(buffer));
                    }
                    default -> throw new IllegalStateException("crashfs: directory journal record type '" + type
                            + "' at " + start + " (expected: C, M, D, U, R or S)");
                };
                ops.add(op);
            } catch (java.nio.BufferUnderflowException e) {
                break;   // a record cut short by the kill: its change was never made
            }
        }
        return ops;
    }

    private static String string(ByteBuffer buffer) {
        int length = buffer.getInt();
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Undoes, newest first, the changes not covered by a later fsync of their directory (both, for a rename). */
    private void undo(List<Op> ops) throws IOException {
        Map<String, Integer> lastSync = new HashMap<>();
        for (int k = 0; k < ops.size(); k++) {
            if (ops.get(k).type() == 'S') {
                lastSync.put(ops.get(k).dir(), k);
            }
        }
        for (int k = ops.size() - 1; k >= 0; k--) {
            Op op = ops.get(k);
            boolean durable = op.type() == 'S' || (lastSync.getOrDefault(op.dir(), -1) > k
                    && (op.type() != 'R' || lastSync.getOrDefault(op.dstDir(), -1) > k));
            if (!durable) {
                undo(op);
            }
        }
    }

    private void undo(Op op) throws IOException {
        Path path = root.resolve(op.a());
        switch (op.type()) {
            case 'C' -> entries += Files.deleteIfExists(path) ? 1 : 0;
            case 'M' -> entries += deleteTree(path) ? 1 : 0;
            case 'D' -> {
                if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(path);
                    entries++;
                }
            }
            case 'U' -> {
                Path trash = state.resolve("trash").resolve(op.b());
                if (Files.exists(trash, LinkOption.NOFOLLOW_LINKS)) {
                    Files.move(trash, path, StandardCopyOption.REPLACE_EXISTING);
                    entries++;
                }
            }
            case 'R' -> {
                Path dst = root.resolve(op.b());
                if (Files.exists(dst, LinkOption.NOFOLLOW_LINKS) && inodeNumber(dst) == op.movedInode()) {
                    Files.move(dst, path, StandardCopyOption.REPLACE_EXISTING);
                    entries++;
                }
                Path trash = op.c().isEmpty() ? null : state.resolve("trash").resolve(op.c());
                if (trash != null && Files.exists(trash, LinkOption.NOFOLLOW_LINKS)) {
                    Files.move(trash, dst, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            default -> throw new IllegalStateException("crashfs: cannot undo '" + op.type() + "'");
        }
    }

    private static long inodeNumber(Path path) throws IOException {
        return (Long) Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS);
    }

    private static boolean deleteTree(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        return true;
    }

    private static void clear(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return;
        }
        try (DirectoryStream<Path> children = Files.newDirectoryStream(directory)) {
            for (Path child : children) {
                try {
                    Files.delete(child);
                } catch (NoSuchFileException e) {
                    // gone already
                }
            }
        }
    }
}
