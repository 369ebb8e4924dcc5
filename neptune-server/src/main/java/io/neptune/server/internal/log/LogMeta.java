package io.neptune.server.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The {@code meta} file next to the log: the persisted epoch and the committed LSN, replaced
 * atomically as a whole ({@link AtomicFiles#write}). Format, big-endian, 28 bytes:
 * {@code magic:int32 "NMET" | version:int32 1 | epoch:int64 | committedLsn:int64 | crc32c:int32}
 * with the CRC over the 24 bytes before it.
 *
 * <p>Thread-safety: thread-safe. The epoch only goes up; the committed LSN too, except when
 * recovery resets it to what the service reports. Every write of the file happens under
 * {@code ioLock} and takes its snapshot there, so a later write never stores older values than an
 * earlier one. The epoch changes only under {@code ioLock}; the committed LSN advances lock-free,
 * so recording a commit never waits for a write of the file.
 */
final class LogMeta {
    static final String NAME = "meta";
    private static final int MAGIC = 0x4E4D4554;   // "NMET"
    private static final int VERSION = 1;
    private static final int BYTES = 28;

    private final Path directory;
    private final Path path;
    private final Object ioLock = new Object();
    private volatile long epoch;   // written under ioLock
    private final AtomicLong committedLsn;
    // @GuardedBy("ioLock")
    private long persistedCommittedLsn;

    private LogMeta(Path directory, long epoch, long committedLsn) {
        this.directory = directory;
        this.path = directory.resolve(NAME);
        this.epoch = epoch;
        this.committedLsn = new AtomicLong(committedLsn);
        this.persistedCommittedLsn = committedLsn;
    }

    /**
     * Reads the meta file in {@code directory}; a missing file means epoch 0 and nothing committed.
     * A file that is present but malformed is an error: it is only ever replaced atomically, and the
     * epoch it holds must never go back.
     */
    static LogMeta load(Path directory) throws IOException {
        Path path = directory.resolve(NAME);
        Files.deleteIfExists(AtomicFiles.temporary(path));
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            return new LogMeta(directory, 0, 0);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length != BYTES || buffer.getInt(0) != MAGIC || buffer.getInt(4) != VERSION
                || buffer.getInt(BYTES - 4) != crc(bytes)) {
            throw new LogException(directory, NAME + ": " + bytes.length
                    + " bytes that fail the check (expected: " + BYTES + " bytes, magic \"NMET\", version "
                    + VERSION + ", matching crc32c); refusing to guess the persisted epoch");
        }
        long epoch = buffer.getLong(8);
        long committed = buffer.getLong(16);
        if (epoch < 0 || committed < 0) {
            throw new LogException(directory, NAME + ": epoch " + epoch + ", committed LSN " + committed
                    + " (expected: both >= 0)");
        }
        return new LogMeta(directory, epoch, committed);
    }

    long epoch() {
        return epoch;
    }

    long committedLsn() {
        return committedLsn.get();
    }

    /**
     * Durably sets the epoch; returns whether it changed. Throws if {@code newEpoch} is lower than
     * the current one.
     */
    boolean persistEpoch(long newEpoch) throws IOException {
        synchronized (ioLock) {
            if (newEpoch < epoch) {
                throw new IllegalArgumentException(
                        "epoch: " + newEpoch + " (expected: >= " + epoch + ", the persisted epoch)");
            }
            if (newEpoch == epoch) {
                return false;
            }
            long committed = committedLsn.get();
            AtomicFiles.write(path, encode(newEpoch, committed));
            epoch = newEpoch;
            persistedCommittedLsn = committed;
            return true;
        }
    }

    /** Raises the committed LSN to {@code lsn} in memory; returns whether it went up. */
    boolean advanceCommitted(long lsn) {
        long previous = committedLsn.getAndAccumulate(lsn, Math::max);
        return lsn > previous;
    }

    /** Sets the committed LSN to {@code lsn}; returns whether it changed. */
    boolean resetCommitted(long lsn) {
        return committedLsn.getAndSet(lsn) != lsn;
    }

    /** Lowers the committed LSN to {@code lsn} if it is above; only while opening the log. */
    void clampCommitted(long lsn) {
        committedLsn.accumulateAndGet(lsn, Math::min);
    }

    /** Writes the file if the committed LSN changed since the last write. */
    void flush() throws IOException {
        synchronized (ioLock) {
            long committed = committedLsn.get();
            if (committed == persistedCommittedLsn) {
                return;
            }
            AtomicFiles.write(path, encode(epoch, committed));
            persistedCommittedLsn = committed;
        }
    }

    Path directory() {
        return directory;
    }

    private static byte[] encode(long epoch, long committedLsn) {
        ByteBuffer buffer = ByteBuffer.allocate(BYTES);
        buffer.putInt(MAGIC).putInt(VERSION).putLong(epoch).putLong(committedLsn);
        buffer.putInt(crc(buffer.array()));
        return buffer.array();
    }

    private static int crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, BYTES - 4);
        return (int) crc.getValue();
    }
}
