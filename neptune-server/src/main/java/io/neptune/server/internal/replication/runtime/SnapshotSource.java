package io.neptune.server.internal.replication.runtime;

import io.neptune.core.Snapshottable;
import io.neptune.server.internal.log.KnownRequest;
import io.neptune.server.internal.replication.runtime.PeerMessages.Chunk;
import io.neptune.server.internal.replication.runtime.PeerMessages.ChunkRequest;
import io.neptune.server.internal.replication.runtime.PeerMessages.SnapshotOffer;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving side of snapshot transfer ({@code docs/protocols/replication.md}, "Snapshots"): writes
 * a snapshot of the partition's service to a file in the log's {@code snapshots} directory (on a
 * thread of its own, while writes go on), followed by the request ids the log remembers of the
 * writes in it ({@link SnapshotOffer#requestIds()} of them, {@link KnownRequest#BYTES} bytes each), offers it, and serves it in chunks with a CRC32C each, read from the file (never held whole
 * in memory). The offered snapshot is kept until a newer one is
 * written; while a replica fetches it, {@link #pinnedFrom()} keeps the log records after it.
 *
 * <p>Thread-safety: confined to the partition's executor, except the export, which runs on its own
 * thread and hands its result back to the executor.
 */
final class SnapshotSource {
    private static final Logger logger = LoggerFactory.getLogger(SnapshotSource.class);
    /** The largest chunk: well within a frame once base64-encoded in JSON. */
    static final int MAX_CHUNK_BYTES = 1024 * 1024;
    /** How long after the last request for it a snapshot pins the log records after it. */
    private static final long PIN_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final ReplicaCore core;
    private final Path directory;
    private final int chunkBytes;
    private @Nullable Offered current;
    private boolean exporting;
    private long lastServedNanos;

    /** A snapshot file on offer. */
    private record Offered(Path file, SnapshotOffer offer) {}

    SnapshotSource(ReplicaCore core, Path directory) {
        this.core = core;
        this.directory = directory;
        this.chunkBytes = (int) Math.max(4096, Math.min(MAX_CHUNK_BYTES, core.maxBatchBytes / 2));
    }

    /**
     * Answers a {@code snapshot} request: the current snapshot if it still fits the log and is at least
     * {@code minLsn} (the asker's log starts after it: an older one would leave it a gap), else starts
     * writing one.
     */
    void onRequest(long minLsn, Consumer<Object> reply) {
        Snapshottable service = core.app.snapshottable().orElse(null);
        if (service == null) {
            reply.accept(notReady("the service of " + core.name + " is not Snapshottable"));
            return;
        }
        Offered offered = current;
        if (offered != null && offered.offer().lsn() >= core.log.startLsn() - 1 && offered.offer().lsn() >= minLsn) {
            lastServedNanos = core.clock.getAsLong();
            reply.accept(offered.offer());
            return;
        }
        if (core.applied < minLsn) {
            reply.accept(notReady(core.name + " applied only up to LSN " + core.applied + ", below " + minLsn
                    + ", where the asker's log starts"));
            return;
        }
        if (!exporting) {
            exporting = true;
            core.background.execute(() -> export(service));
        }
        reply.accept(notReady("writing a snapshot"));
    }

    private static SnapshotOffer notReady(String reason) {
        return new SnapshotOffer(false, reason, "", 0, 0, "", 0, "", 0, 0);
    }

    /** On the export thread: writes the snapshot to a temporary file, then hands it to the executor. */
    private void export(Snapshottable service) {
        Path temporary = directory.resolve("outgoing.tmp");
        try {
            Files.createDirectories(directory);
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            long start = System.nanoTime();
            long lsn;
            List<KnownRequest> requests;
            try (DataOutputStream out = new DataOutputStream(new DigestOutputStream(new BufferedOutputStream(
                    Files.newOutputStream(temporary), 1 << 16), sha256))) {
                lsn = service.writeSnapshot(core.partition, out);
                // the ids of the writes in it, so that the installer does not run a retry of one of them again
                requests = core.log.requestsUpTo(lsn);
                for (KnownRequest request : requests) {
                    request.writeTo(out);
                }
            }
            long size = Files.size(temporary);
            String sha = HexFormat.of().formatHex(sha256.digest());
            logger.info("{}: wrote a snapshot at LSN {}: {} bytes with {} request ids in {} ms", core.name, lsn, size,
                    requests.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            int ids = requests.size();
            core.exec.execute(() -> exported(temporary, lsn, size, sha, ids));
        } catch (IOException | RuntimeException | NoSuchAlgorithmException e) {
            logger.warn("{}: [NEP-SNAP-003] cannot write a snapshot; a replica that needs one waits and asks again",
                    core.name, e);
            core.exec.execute(() -> exporting = false);
        }
    }

    /** On the executor: offers the written snapshot if the log still holds its boundary record. */
    private void exported(Path temporary, long lsn, long size, String sha, int requestIds) {
        exporting = false;
        long boundary = core.log.startLsn() - 1;
        if (lsn < boundary || lsn > core.log.lastLsn()) {
            logger.info("{}: snapshot at LSN {} is outside the log ({}..{}); writing another", core.name, lsn, boundary,
                    core.log.lastLsn());
            return;
        }
        try {
            Path file = directory.resolve("snapshot-" + lsn + ".snap");
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Offered previous = current;
            current = new Offered(file, new SnapshotOffer(true, "", lsn + "-" + sha.substring(0, 16), lsn,
                    core.log.epochOf(lsn), core.log.originOf(lsn), size, sha, chunkBytes, requestIds,
                    core.mode.snapshotMembers(lsn)));
            if (previous != null && !previous.file().equals(file)) {
                Files.deleteIfExists(previous.file());
            }
            deleteOthers(file);
        } catch (IOException e) {
            throw new UncheckedIOException(core.name + ": cannot keep the snapshot at LSN " + lsn, e);
        }
    }

    /**
     * Deletes the snapshot files in the directory but {@code kept}: an earlier process's offer lived in
     * its memory only, so its file stayed on disk, one per partition and restart.
     */
    private void deleteOthers(Path kept) throws IOException {
        try (java.nio.file.DirectoryStream<Path> files = Files.newDirectoryStream(directory, "snapshot-*.snap")) {
            for (Path file : files) {
                if (!file.getFileName().equals(kept.getFileName())) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /** Answers a {@code chunk} request from the current snapshot's file. */
    void onChunk(ChunkRequest m, Consumer<Object> reply) {
        Offered offered = current;
        if (offered == null || !offered.offer().id().equals(m.id())) {
            reply.accept(new Chunk(false, "snapshot " + m.id() + " is gone (current: "
                    + (offered == null ? "none" : offered.offer().id()) + ")", m.offset(), new byte[0], 0));
            return;
        }
        SnapshotOffer offer = offered.offer();
        if (m.offset() < 0 || m.offset() >= offer.size() && offer.size() > 0 || m.offset() % offer.chunkBytes() != 0) {
            reply.accept(new Chunk(false, "offset: " + m.offset() + " (expected: a multiple of " + offer.chunkBytes()
                    + " below " + offer.size() + ")", m.offset(), new byte[0], 0));
            return;
        }
        lastServedNanos = core.clock.getAsLong();
        int length = (int) Math.min(offer.chunkBytes(), offer.size() - m.offset());
        ByteBuffer data = ByteBuffer.allocate(length);
        try (FileChannel channel = FileChannel.open(offered.file(), StandardOpenOption.READ)) {
            while (data.hasRemaining() && channel.read(data, m.offset() + data.position()) >= 0) {
                // read the whole chunk
            }
        } catch (IOException e) {
            reply.accept(new Chunk(false, "cannot read " + offered.file() + ": " + e, m.offset(), new byte[0], 0));
            return;
        }
        CRC32C crc = new CRC32C();
        crc.update(data.array(), 0, data.position());
        reply.accept(new Chunk(true, "", m.offset(), data.array(), (int) crc.getValue()));
    }

    /**
     * The lowest LSN the log must keep for the snapshot on offer: the one after its LSN while a
     * replica fetched it within the last minute (it needs the tail next), else none.
     */
    long pinnedFrom() {
        Offered offered = current;
        return offered != null && core.clock.getAsLong() - lastServedNanos < PIN_NANOS ? offered.offer().lsn() + 1
                : Long.MAX_VALUE;
    }
}
