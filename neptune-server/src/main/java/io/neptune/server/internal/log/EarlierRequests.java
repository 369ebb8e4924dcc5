package io.neptune.server.internal.log;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request ids of the writes before a log's start, which the log's records no longer carry: the
 * ones a checkpoint dropped ({@link RedoLog#truncateBefore}) and the ones a snapshot brought
 * ({@link RedoLog#restartAfter}). Without them, a retry of such a write would run it again once the
 * response cache forgot it (a restart, an install). {@link RedoLog#open} puts them back in the index
 * ahead of the records', so the window of {@value RedoLog#REQUEST_ID_CAPACITY} ids is the same
 * whether or not the log was cut.
 *
 * <p>Kept next to the log in {@code request-ids-<boundary LSN>}, written atomically before the log
 * is cut to that boundary, and read only for a log whose boundary is the one the file names: a crash
 * between the two leaves the log with the file of its own boundary, and the new file is garbage the
 * next cut deletes. Format: magic {@code NRID}, version 1, the boundary (LSN, epoch, origin as a
 * length-prefixed UTF-8 string), the count, then each id's two halves and LSN, oldest first, and a
 * CRC32C of everything before it. A damaged file is ignored with a warning: it only narrows the
 * window of retries recognised.
 *
 * <p>Thread-safety: stateless; {@link RedoLog} serializes writes to one directory.
 */
final class EarlierRequests {
    private static final Logger logger = LoggerFactory.getLogger(EarlierRequests.class);
    private static final String PREFIX = "request-ids-";
    private static final int MAGIC = 0x4e524944;   // "NRID"
    private static final int VERSION = 1;

    private EarlierRequests() {}

    /** Durably writes {@code requests}, the ids before the boundary {@code boundary}, to its file. */
    static void write(Path directory, LogBoundary boundary, List<KnownRequest> requests) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + requests.size() * KnownRequest.BYTES);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.writeLong(boundary.lsn());
        out.writeLong(boundary.epoch());
        byte[] origin = boundary.origin().getBytes(StandardCharsets.UTF_8);
        out.writeInt(origin.length);
        out.write(origin);
        out.writeInt(requests.size());
        for (KnownRequest request : requests) {
            request.writeTo(out);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());   // a copy; ByteArrayOutputStream lends no view of its buffer
        out.writeInt((int) crc.getValue());
        AtomicFiles.write(file(directory, boundary), bytes.toByteArray());
    }

    /**
     * The ids kept for a log with boundary {@code boundary}; empty if there are none (or they are damaged).
     * A file that cannot be read at all (an I/O error, no permission) throws, as any other file of the log
     * would: the disk or the directory needs an operator, and opening without the ids would quietly let
     * retries of those writes run again.
     */
    static List<KnownRequest> read(Path directory, LogBoundary boundary) throws IOException {
        Path file = file(directory, boundary);
        if (boundary.lsn() == 0 || !Files.exists(file)) {
            return List.of();
        }
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file));
        try {
            if (in.limit() < 4) {
                throw new IllegalArgumentException(in.limit() + " bytes");
            }
            CRC32C crc = new CRC32C();
            crc.update(in.array(), 0, in.limit() - 4);
            if ((int) crc.getValue() != in.getInt(in.limit() - 4)) {
                throw new IllegalArgumentException("CRC32C mismatch");
            }
            if (in.getInt() != MAGIC || in.getInt() != VERSION) {
                throw new IllegalArgumentException("not a version " + VERSION + " request-id file");
            }
            long lsn = in.getLong();
            long epoch = in.getLong();
            byte[] origin = new byte[in.getInt()];
            in.get(origin);
            LogBoundary written = new LogBoundary(lsn, epoch, new String(origin, StandardCharsets.UTF_8));
            if (!written.equals(boundary)) {
                logger.debug("{}: for boundary {}, not the log's {}; ignored", file, written, boundary);
                return List.of();
            }
            int count = in.getInt();
            if (count < 0 || count > (in.remaining() - 4) / KnownRequest.BYTES) {
                throw new IllegalArgumentException("count " + count + " does not fit the file");
            }
            List<KnownRequest> requests = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                KnownRequest request = KnownRequest.readFrom(in);
                long previous = requests.isEmpty() ? 1 : requests.get(requests.size() - 1).lsn();
                if (request.lsn() < previous || request.lsn() > boundary.lsn()) {
                    throw new IllegalArgumentException("LSN " + request.lsn() + " after " + previous + " (expected: "
                            + previous + ".." + boundary.lsn() + ")");
                }
                requests.add(request);
            }
            return requests;
        } catch (IllegalArgumentException | IndexOutOfBoundsException | BufferUnderflowException
                | NegativeArraySizeException e) {
            logger.warn("{}: damaged ({}); retries of the writes before LSN {} are not recognised", file,
                    e.getMessage(), boundary.startLsn());
            return List.of();
        }
    }

    /** Deletes every request-id file in {@code directory} but the one of {@code keep}. */
    static void deleteOthers(Path directory, LogBoundary keep) throws IOException {
        Path kept = file(directory, keep);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PREFIX + "*")) {
            for (Path file : files) {
                if (!file.getFileName().equals(kept.getFileName())) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    private static Path file(Path directory, LogBoundary boundary) {
        return directory.resolve(PREFIX + boundary.lsn());
    }
}
