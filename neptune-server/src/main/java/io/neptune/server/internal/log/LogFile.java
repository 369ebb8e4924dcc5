package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNullElse;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;

/**
 * The {@code redo.log} file: an 8-byte header ({@code magic:int32 "NLOG" | version:int32 1})
 * followed by {@link RecordCodec} frames back to back.
 *
 * <p>Thread-safety: {@link #scan}, {@link #write}, {@link #force} and {@link #truncate} are called
 * by one thread at a time (the opener, then the log's writer thread); {@link #read} may be called by
 * any thread concurrently with them. Reads go through their own non-interruptible file handle, so an
 * interrupted reader cannot close the channel the writer uses (a {@link FileChannel} closes itself
 * when a thread blocked in it is interrupted).
 */
final class LogFile implements AutoCloseable {
    static final String NAME = "redo.log";
    static final int HEADER_BYTES = 8;
    private static final int MAGIC = 0x4E4C4F47;   // "NLOG"
    private static final int VERSION = 1;
    private static final int SCAN_BUFFER_BYTES = 1024 * 1024;

    private final Path path;
    private final FileChannel channel;
    private final RandomAccessFile reader;   // guarded by itself: seek + read must not interleave

    /** Receives each intact record found by {@link #scan}. */
    interface Visitor {
        void record(LogRecord record, long offset, int frameBytes);
    }

    /**
     * What {@link #scan} found.
     *
     * @param validEnd the offset just past the last intact record
     * @param fileSize the file's size before any truncation
     * @param problem why the frame at {@code validEnd} is bad, or empty if the file ends there
     */
    record Scan(long validEnd, long fileSize, String problem) {
        boolean hasBadTail() {
            return validEnd < fileSize;
        }
    }

    private LogFile(Path path, FileChannel channel, RandomAccessFile reader) {
        this.path = path;
        this.channel = channel;
        this.reader = reader;
    }

    /**
     * Opens the log file in {@code directory}, creating it with its header if it does not exist (by
     * atomic rename, so a crash never leaves a file without a complete header).
     */
    static LogFile open(Path directory) throws IOException {
        Path path = directory.resolve(NAME);
        Files.deleteIfExists(AtomicFiles.temporary(path));
        if (!Files.exists(path)) {
            AtomicFiles.write(path, ByteBuffer.allocate(HEADER_BYTES).putInt(MAGIC).putInt(VERSION).array());
        }
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            checkHeader(directory, channel);
            return new LogFile(path, channel, new RandomAccessFile(path.toFile(), "r"));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static void checkHeader(Path directory, FileChannel channel) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        while (header.hasRemaining() && channel.read(header, header.position()) >= 0) {
            // read until full or end of file
        }
        header.flip();
        int magic = header.remaining() == HEADER_BYTES ? header.getInt() : 0;
        int version = magic == MAGIC ? header.getInt() : 0;
        if (magic != MAGIC) {
            byte[] found = new byte[header.limit()];
            header.get(0, found);
            throw new LogException(directory, NAME + ": header: 0x" + HexFormat.of().formatHex(found)
                    + " (expected: a Neptune REDO log starting with \"NLOG\")");
        }
        if (version != VERSION) {
            throw new LogException(directory, NAME + ": format version: " + version + " (expected: " + VERSION + ")");
        }
    }

    /** The file's path. */
    Path path() {
        return path;
    }

    /**
     * Reads every frame from the header on, passing each intact record whose LSN follows the
     * previous one (starting at 1) to {@code visitor}, and stops at the first frame that is cut off,
     * fails its CRC, does not parse or breaks the LSN sequence.
     */
    Scan scan(Visitor visitor) throws IOException {
        long size = channel.size();
        Window window = new Window();
        long offset = HEADER_BYTES;
        long expectedLsn = 1;
        while (offset < size) {
            if (size - offset < RecordCodec.FRAME_HEADER_BYTES) {
                return new Scan(offset, size, "frame header: " + (size - offset) + " bytes (expected: 8)");
            }
            ByteBuffer header = window.get(offset, RecordCodec.FRAME_HEADER_BYTES);
            int bodyBytes = header.getInt();
            String problem = RecordCodec.checkLength(bodyBytes);
            if (!problem.isEmpty()) {
                return new Scan(offset, size, problem);
            }
            long frameBytes = RecordCodec.FRAME_HEADER_BYTES + (long) bodyBytes;
            if (frameBytes > size - offset) {
                return new Scan(offset, size, "length: " + bodyBytes + " (expected: <= "
                        + (size - offset - RecordCodec.FRAME_HEADER_BYTES) + ", the bytes left in the file)");
            }
            LogRecord record;
            try {
                record = RecordCodec.decodeFrame(window.get(offset, (int) frameBytes), expectedLsn);
            } catch (IllegalArgumentException e) {
                return new Scan(offset, size, requireNonNullElse(e.getMessage(), e.toString()));
            }
            visitor.record(record, offset, (int) frameBytes);
            offset += frameBytes;
            expectedLsn++;
        }
        return new Scan(offset, size, "");
    }

    /** Reads {@code length} bytes at {@code offset}. */
    ByteBuffer read(long offset, int length) throws IOException {
        byte[] bytes = new byte[length];
        synchronized (reader) {
            reader.seek(offset);
            reader.readFully(bytes);
        }
        return ByteBuffer.wrap(bytes);
    }

    /** Writes {@code frames} back to back starting at {@code offset}. */
    void write(long offset, List<byte[]> frames) throws IOException {
        ByteBuffer[] buffers = new ByteBuffer[frames.size()];
        long remaining = 0;
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.wrap(frames.get(i));
            remaining += buffers[i].remaining();
        }
        channel.position(offset);
        while (remaining > 0) {
            remaining -= channel.write(buffers);
        }
    }

    /** Forces written data (and the file size, as far as reading it back needs) to the device. */
    void force() throws IOException {
        channel.force(false);
    }

    /** Forces written data and all of the file's metadata to the device. */
    void forceAll() throws IOException {
        channel.force(true);
    }

    /** Cuts the file to {@code size} bytes and forces the change. */
    void truncate(long size) throws IOException {
        channel.truncate(size);
        channel.force(true);
    }

    @Override
    public void close() throws IOException {
        try (RandomAccessFile r = reader) {
            channel.close();
        }
    }

    /** A read-ahead buffer for {@link #scan}, so scanning costs one read per megabyte, not per frame. */
    private final class Window {
        private ByteBuffer buffer = ByteBuffer.allocate(0);
        private long start;

        ByteBuffer get(long offset, int length) throws IOException {
            if (offset < start || offset + length > start + buffer.limit()) {
                if (length > buffer.capacity() || buffer.capacity() < SCAN_BUFFER_BYTES) {
                    buffer = ByteBuffer.allocate(Math.max(length, SCAN_BUFFER_BYTES));
                }
                buffer.clear();
                start = offset;
                while (buffer.position() < length) {
                    if (channel.read(buffer, offset + buffer.position()) < 0) {
                        throw new EOFException(path + ": end of file at " + (offset + buffer.position()));
                    }
                }
                buffer.flip();
            }
            return buffer.slice((int) (offset - start), length);
        }
    }
}
