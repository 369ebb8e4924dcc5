package io.neptune.server.crashfs;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A child process for {@link CrashFsIT}: runs file operations under a root, the way Neptune's log
 * and H2 do them (FileChannel, RandomAccessFile, Files), then halts without closing anything, as a
 * killed process would. Each argument after the root is one operation, fields separated by '|':
 * {@code append|f|text}, {@code write|f|offset|text} (RandomAccessFile), {@code pwrite|f|offset|text}
 * (FileChannel at a position), {@code truncate|f|size},
 * {@code force|f}, {@code syncdir|d} ("." for the root), {@code move|from|to} (atomic, replacing),
 * {@code delete|f}, {@code mkdir|d}, {@code mmap|f}.
 */
final class CrashFsProbeMain {
    private CrashFsProbeMain() {}

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]);
        for (int k = 1; k < args.length; k++) {
            String[] op = args[k].split("\\|", -1);
            Path path = root.resolve(op[1]);
            switch (op[0]) {
                case "append" -> {
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                        channel.write(ByteBuffer.wrap(op[2].getBytes(StandardCharsets.UTF_8)));
                    }
                }
                case "write" -> {
                    try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
                        file.seek(Long.parseLong(op[2]));
                        file.write(op[3].getBytes(StandardCharsets.UTF_8));
                    }
                }
                case "pwrite" -> {
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                        channel.write(ByteBuffer.wrap(op[3].getBytes(StandardCharsets.UTF_8)), Long.parseLong(op[2]));
                    }
                }
                case "truncate" -> {
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                        channel.truncate(Long.parseLong(op[2]));
                    }
                }
                case "force" -> {
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
                        channel.force(false);
                    }
                }
                case "syncdir" -> {
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                        channel.force(true);
                    }
                }
                case "move" -> Files.move(path, root.resolve(op[2]), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
                case "delete" -> Files.delete(path);
                case "mkdir" -> Files.createDirectory(path);
                case "mmap" -> {
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ,
                            StandardOpenOption.WRITE)) {
                        MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, 1);
                        map.put(0, (byte) 'M');
                    }
                }
                default -> throw new IllegalArgumentException("operation: " + args[k]);
            }
        }
        System.out.println("DONE");
        System.out.flush();
        Runtime.getRuntime().halt(0);   // no close, no shutdown hooks: as if killed
    }
}
