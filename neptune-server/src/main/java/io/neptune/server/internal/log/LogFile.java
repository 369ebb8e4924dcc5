package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The {@code redo.log} file: a header followed by {@link RecordCodec} frames back to back. A log
 * that starts at LSN 1 has the 8-byte header {@code magic:int32 "NLOG" | version:int32 1}; one whose
 * prefix was dropped ({@link #compact}) has the version 2 header
 * {@code magic | version:int32 2 | boundaryLsn:int64 | boundaryEpoch:int64 | originLength:uint16 |
 * origin:UTF-8 | crc32c:int32} (CRC over the bytes before it), naming the {@link LogBoundary}: the
 * first frame is record {@code boundaryLsn + 1}. A compaction writes the kept frames to a new file
 * and renames it over the old one, so the file always has one complete header.
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
    private static final int VERSION_TRUNCATED = 2;
    private static final int SCAN_BUFFER_BYTES = 1024 * 1024;

    private final Path path;
    // replaced by compact(), on the writer thread; read by reads under readLock
    private volatile FileChannel channel;
    private final Object readLock = new Object();
    // @GuardedBy("readLock"): seek + read must not interleave
    private RandomAccessFile reader;
    private volatile LogBoundary boundary;
    private volatile int headerBytes;

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

    private LogFile(Path path, FileChannel channel, RandomAccessFile reader, LogBoundary boundary, int headerBytes) {
        this.path = path;
        this.channel = channel;
        this.reader = reader;
        this.boundary = boundary;
        this.headerBytes = headerBytes;
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
            ByteBuffer header = readFully(channel, 0, HEADER_BYTES);
            int magic = header.remaining() == HEADER_BYTES ? header.getInt() : 0;
            int version = magic == MAGIC ? header.getInt() : 0;
            if (magic != MAGIC) {
                byte[] found = new byte[header.limit()];
                header.get(0, found);
                throw new LogException(directory, NAME + ": header: 0x" + HexFormat.of().formatHex(found)
                        + " (expected: a Neptune REDO log starting with \"NLOG\")");
            }
            LogBoundary boundary = LogBoundary.NONE;
            int headerBytes = HEADER_BYTES;
            if (version == VERSION_TRUNCATED) {
                ByteBuffer rest = readFully(channel, HEADER_BYTES, 8 + 8 + 2);
                int originBytes = rest.remaining() == 18 ? Short.toUnsignedInt(rest.getShort(16)) : 0;
                headerBytes = HEADER_BYTES + 18 + originBytes + 4;
                boundary = decodeBoundary(directory, readFully(channel, 0, headerBytes), headerBytes);
            } else if (version != VERSION) {
                throw new LogException(directory, NAME + ": format version: " + version + " (expected: " + VERSION
                        + " or " + VERSION_TRUNCATED + ")");
            }
            return new LogFile(path, channel, new RandomAccessFile(path.toFile(), "r"), boundary, headerBytes);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static ByteBuffer readFully(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(length);
        while (bytes.hasRemaining() && channel.read(bytes, position + bytes.position()) >= 0) {
            // read until full or end of file
        }
        return bytes.flip();
    }

    private static LogBoundary decodeBoundary(Path directory, ByteBuffer header, int headerBytes) {
        CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, Math.max(0, header.limit() - 4));
        if (header.limit() != headerBytes || header.getInt(headerBytes - 4) != (int) crc.getValue()) {
            throw new LogException(directory, NAME + ": version 2 header of " + header.limit()
                    + " bytes fails its check (expected: " + headerBytes + " bytes with a matching crc32c)");
        }
        long lsn = header.getLong(8);
        long epoch = header.getLong(16);
        byte[] origin = new byte[headerBytes - HEADER_BYTES - 18 - 4];
        header.get(HEADER_BYTES + 18, origin);
        try {
            return new LogBoundary(lsn, epoch, new String(origin, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new LogException(directory, NAME + ": header: " + e.getMessage());
        }
    }

    private static byte[] encodeHeader(LogBoundary boundary) {
        byte[] origin = boundary.origin().getBytes(StandardCharsets.UTF_8);
        if (origin.length > RecordCodec.MAX_TEXT_BYTES) {
            throw new IllegalArgumentException("origin: " + origin.length + " UTF-8 bytes (expected: <= "
                    + RecordCodec.MAX_TEXT_BYTES + ")");
        }
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES + 18 + origin.length + 4);
        header.putInt(MAGIC).putInt(VERSION_TRUNCATED).putLong(boundary.lsn()).putLong(boundary.epoch());
        header.putShort((short) origin.length).put(origin);
        CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, header.position());
        header.putInt((int) crc.getValue());
        return header.array();
    }

    /** The record just before the file's first frame. */
    LogBoundary boundary() {
        return boundary;
    }

    /** The offset of the first frame. */
    int headerBytes() {
        return headerBytes;
    }

    /** The size of the header {@link #compact} writes for {@code boundary}. */
    static int headerBytes(LogBoundary boundary) {
        return HEADER_BYTES + 18 + boundary.origin().getBytes(StandardCharsets.UTF_8).length + 4;
    }

    /**
     * Replaces the file with one that starts after {@code newBoundary} and holds the bytes from
     * {@code cutOffset} to the end of this one (none if it is past the end): written to a temporary file, forced, renamed over
     * this file and the directory forced, so a crash leaves either file whole. The new file takes
     * the old one's place in a task handed to {@code underLock}, which runs it under the lock that
     * readers plan their reads under; reads that raced it fail on the closed handle or read other
     * bytes, and the caller retries them.
     */
    void compact(long cutOffset, LogBoundary newBoundary, Consumer<Runnable> underLock) throws IOException {
        Path temporary = AtomicFiles.temporary(path);
        long size = channel.size();
        byte[] header = encodeHeader(newBoundary);
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer headerBuffer = ByteBuffer.wrap(header);
            while (headerBuffer.hasRemaining()) {
                out.write(headerBuffer);
            }
            long copied = 0;
            while (cutOffset < size && cutOffset + copied < size) {
                copied += channel.transferTo(cutOffset + copied, size - cutOffset - copied, out);
            }
            out.force(true);
        }
        FileChannel newChannel = null;
        RandomAccessFile newReader = null;
        try {
            Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            newChannel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            newReader = new RandomAccessFile(path.toFile(), "r");
        } catch (IOException | RuntimeException e) {
            if (newChannel != null) {
                newChannel.close();
            }
            throw e;
        }
        FileChannel oldChannel = channel;
        RandomAccessFile[] oldReader = new RandomAccessFile[1];
        FileChannel installChannel = newChannel;
        RandomAccessFile installReader = newReader;
        underLock.accept(() -> {
            synchronized (readLock) {
                oldReader[0] = reader;
                reader = installReader;
            }
            channel = installChannel;
            boundary = newBoundary;
            headerBytes = header.length;
        });
        try (RandomAccessFile r = oldReader[0]) {
            oldChannel.close();
        }
        AtomicFiles.forceDirectory(requireNonNull(path.toAbsolutePath().getParent(), "path: a file in a directory"));
    }

    /** The file's path. */
    Path path() {
        return path;
    }

    /**
     * Reads every frame from the header on, passing each intact record whose LSN follows the
     * previous one (starting at the boundary's next LSN) to {@code visitor}, and stops at the first frame that is cut off,
     * fails its CRC, does not parse or breaks the LSN sequence.
     */
    Scan scan(Visitor visitor) throws IOException {
        long size = channel.size();
        Window window = new Window();
        long offset = headerBytes;
        long expectedLsn = boundary.startLsn();
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
        synchronized (readLock) {
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
        RandomAccessFile r;
        synchronized (readLock) {
            r = reader;
        }
        try (r) {
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
