package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.Snapshottable;
import io.neptune.server.internal.log.KnownRequest;
import io.neptune.server.internal.log.LogBoundary;
import io.neptune.server.internal.replication.runtime.PeerMessages.Chunk;
import io.neptune.server.internal.replication.runtime.PeerMessages.ChunkRequest;
import io.neptune.server.internal.replication.runtime.PeerMessages.SnapshotOffer;
import io.neptune.server.internal.replication.runtime.PeerMessages.SnapshotRequest;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of snapshot transfer ({@code docs/protocols/replication.md}, "Snapshots"): asks
 * a source for its snapshot, fetches it chunk by chunk into {@code incoming.part} in the log's
 * {@code snapshots} directory (checking each chunk's CRC32C and, at the end, the SHA-256 of the whole),
 * then restarts the log after the snapshot's last write, remembering the request ids the file ends
 * with, and restores the service from the rest of the file.
 * The snapshot's id is kept in {@code incoming.id}: a transfer broken off (a lost connection, a
 * killed process) resumes at the last whole chunk if the source still offers the same snapshot.
 *
 * <p>Thread-safety: confined to the partition's executor.
 */
final class SnapshotInstaller {
    private static final Logger logger = LoggerFactory.getLogger(SnapshotInstaller.class);

    private final ReplicaCore core;
    private final Path part;
    private final Path idFile;
    private @Nullable NodeId source;
    /** The oldest snapshot this install can use: one older than this log's start left a gap (0: any). */
    private long minLsn;
    private @Nullable SnapshotOffer offer;
    private long offset;
    private boolean busy;
    private long startNanos;
    private long fetchedBytes;

    SnapshotInstaller(ReplicaCore core, Path directory) {
        this.core = core;
        this.part = directory.resolve("incoming.part");
        this.idFile = directory.resolve("incoming.id");
    }

    /** Whether a snapshot is to be installed (from {@link #source}). */
    boolean active() {
        return source != null;
    }

    /** The node the snapshot being installed comes from, or null. */
    @Nullable NodeId source() {
        return source;
    }

    /** Installs a snapshot from {@code from}; a transfer already under way from another node starts over there. */
    void needed(NodeId from) {
        if (!from.equals(source)) {
            logger.info("{}: installing a snapshot from {}", core.name, from);
            source = from;
            minLsn = 0;
            offer = null;
            startNanos = core.clock.getAsLong();
            fetchedBytes = 0;
        }
    }

    /** Periodic progress: asks for the offer, or resumes fetching chunks after a failure. */
    void tick() {
        NodeId from = source;
        if (from == null || busy) {
            return;
        }
        SnapshotOffer current = offer;
        if (current == null) {
            busy = true;
            core.peers.call(from, core.request("snapshot", new SnapshotRequest(core.service,
                    core.partition, minLsn)), SnapshotOffer.class).whenComplete((o, e) -> core.exec.execute(() -> {
                        busy = false;
                        if (e != null || o == null || !o.ready()) {
                            logger.debug("{}: no snapshot from {} yet: {}", core.name, from,
                                    e != null ? e.toString() : o == null ? "no reply" : o.reason());
                            return;
                        }
                        offered(o);
                    }));
        } else {
            fetch(from, current);
        }
    }

    /** Takes an offer: resumes the part file if it holds the same snapshot, else starts a new one. */
    private void offered(SnapshotOffer o) {
        try {
            Files.createDirectories(part.getParent() == null ? Path.of(".") : part.getParent());
            String previous = Files.exists(idFile) ? Files.readString(idFile, StandardCharsets.UTF_8) : "";
            long have = Files.exists(part) ? Files.size(part) : 0;
            if (previous.equals(o.id()) && o.chunkBytes() > 0) {
                offset = Math.min(o.size(), have / o.chunkBytes() * o.chunkBytes());   // only whole chunks count
                if (offset > 0) {
                    logger.info("{}: resuming snapshot {} at byte {} of {}", core.name, o.id(), offset, o.size());
                }
            } else {
                Files.deleteIfExists(part);
                Files.writeString(idFile, o.id(), StandardCharsets.UTF_8);
                offset = 0;
            }
            try (FileChannel channel = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                channel.truncate(offset);
            }
            offer = o;
            NodeId from = source;
            if (from != null) {
                fetch(from, o);
            }
        } catch (IOException e) {
            logger.warn("{}: [NEP-SNAP-004] cannot prepare {} for a snapshot: {}", core.name, part, e.toString());
        }
    }

    private void fetch(NodeId from, SnapshotOffer o) {
        if (offset >= o.size()) {
            finish(o);
            return;
        }
        busy = true;
        long at = offset;
        core.peers.call(from, core.request("chunk", new ChunkRequest(core.service, core.partition,
                o.id(), at)), Chunk.class).whenComplete((chunk, e) -> core.exec.execute(() -> {
                    busy = false;
                    if (o != offer) {
                        return;
                    }
                    if (e != null || chunk == null) {
                        logger.info("{}: snapshot chunk at {} from {} failed ({}); resuming later", core.name, at, from,
                                e);
                        return;
                    }
                    received(from, o, at, chunk);
                }));
    }

    /** Checks and writes a chunk, then asks for the next one or installs. */
    private void received(NodeId from, SnapshotOffer o, long at, Chunk chunk) {
        String problem = check(o, at, chunk);
        if (!problem.isEmpty()) {
            logger.warn("{}: [NEP-SNAP-002] refused the snapshot chunk at {} from {}: {}", core.name, at, from,
                    problem);
            if (!chunk.ok()) {
                offer = null;   // the snapshot is gone: ask for the current one
            }
            return;
        }
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.WRITE)) {
            ByteBuffer data = ByteBuffer.wrap(chunk.data());
            while (data.hasRemaining()) {
                channel.write(data, at + data.position());
            }
        } catch (IOException e) {
            logger.warn("{}: [NEP-SNAP-004] cannot write {}: {}", core.name, part, e.toString());
            return;
        }
        offset = at + chunk.data().length;
        fetchedBytes += chunk.data().length;
        fetch(from, o);
    }

    /** What is wrong with {@code chunk} as the piece of {@code o} at {@code at}; empty if nothing. */
    static String check(SnapshotOffer o, long at, Chunk chunk) {
        if (!chunk.ok()) {
            return chunk.reason();
        }
        long expected = Math.min(o.chunkBytes(), o.size() - at);
        if (chunk.offset() != at || chunk.data().length != expected) {
            return "chunk at " + chunk.offset() + " of " + chunk.data().length + " bytes (expected: at " + at + ", "
                    + expected + " bytes)";
        }
        CRC32C crc = new CRC32C();
        crc.update(chunk.data());
        if ((int) crc.getValue() != chunk.crc32c()) {
            return "crc32c: " + Integer.toHexString((int) crc.getValue()) + " (expected: "
                    + Integer.toHexString(chunk.crc32c()) + ", sent with the chunk)";
        }
        return "";
    }

    /** The whole file is here: checks its SHA-256, restores the service, restarts the log. */
    private void finish(SnapshotOffer o) {
        Snapshottable service = core.app.snapshottable().orElse(null);
        try {
            String sha = sha256(part);
            if (!sha.equals(o.sha256())) {
                logger.warn("{}: [NEP-SNAP-002] snapshot {} has SHA-256 {} (expected: {}); fetching it again",
                        core.name, o.id(), sha, o.sha256());
                Files.deleteIfExists(part);
                offer = null;
                return;
            }
            if (service == null) {
                throw new IllegalStateException(core.name + ": the service is not Snapshottable");
            }
            List<KnownRequest> requests = takeRequestIds(o);
            LogBoundary boundary = core.mode.continueAfter(new LogBoundary(o.lsn(), o.epoch(), o.origin()));
            boolean keepLog = continues(boundary);
            if (!keepLog && boundary.lsn() < core.log.startLsn() - 1) {
                // older than what this log starts after: records between would be in neither; ask for a newer one
                logger.warn("{}: [NEP-SNAP-006] snapshot {} at LSN {} is older than this log's start {}: asking"
                        + " for a newer one", core.name, o.id(), o.lsn(), core.log.startLsn());
                Files.deleteIfExists(part);
                Files.deleteIfExists(idFile);
                minLsn = core.log.startLsn() - 1;
                offer = null;
                return;
            }
            if (!keepLog) {
                // The log first: a crash after it leaves a service that applied less than the log's boundary, and the
                // replica installs again; a service restored first would look, after a crash, as if it had applied
                // the old log up to the snapshot's LSN (at level 1, where LSNs are each replica's own, other writes).
                core.restartLogFor(boundary, requests);
            }
            core.mode.installedMembers(o.members() == null ? "" : o.members());
            try (InputStream in = new BufferedInputStream(Files.newInputStream(part), 1 << 16)) {
                service.restoreSnapshot(core.partition, in, boundary.lsn());
            }
            // The log now starts above the snapshot: the restored state must survive a power loss before the
            // replica counts on it (a plain commit is not forced), or it comes back with nothing to replay.
            service.force(core.partition);
            core.installed(boundary, keepLog);
            core.mode.snapshotInstalled();
            Files.deleteIfExists(part);
            Files.deleteIfExists(idFile);
        } catch (IOException | RuntimeException e) {
            logger.error("{}: [NEP-SNAP-001] cannot install snapshot {}: {}; trying again", core.name, o.id(),
                    e.toString(), e);
            offer = null;
            return;
        }
        long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(core.clock.getAsLong() - startNanos));
        logger.info("{}: installed snapshot {} at LSN {} ({} bytes, {} fetched in this run, {} ms, {} MB/s)", core.name,
                o.id(), o.lsn(), o.size(), fetchedBytes, millis, fetchedBytes / 1000 / millis);
        source = null;
        offer = null;
    }

    /**
     * Whether this log already holds the snapshot's last write ({@code boundary}: same LSN, epoch and
     * origin) and so continues it, as Raft's InstallSnapshot asks: then the install keeps the records
     * after it, which this replica may have acknowledged, rather than dropping them (a replica whose
     * store lost its writes re-installs an older snapshot than its log's end). Never at level 1, whose
     * LSNs are each replica's own ({@link ModeCallbacks#continueAfter} puts the boundary above the log).
     */
    private boolean continues(LogBoundary boundary) {
        long lsn = boundary.lsn();
        return lsn >= core.log.startLsn() - 1 && lsn <= core.log.lastLsn() && lsn > 0
                && core.log.epochOf(lsn) == boundary.epoch() && core.log.originOf(lsn).equals(boundary.origin());
    }

    /**
     * Reads the request ids the checked file ends with and cuts them off, so that the service reads
     * only its own snapshot (a crash after the cut leaves a shorter part file, which the next offer
     * of the same snapshot completes).
     */
    private List<KnownRequest> takeRequestIds(SnapshotOffer o) throws IOException {
        long bytes = (long) o.requestIds() * KnownRequest.BYTES;
        if (o.requestIds() < 0 || bytes > o.size()) {
            throw new IOException("requestIds: " + o.requestIds() + " (expected: 0.." + o.size() / KnownRequest.BYTES
                    + ", what fits the " + o.size() + " bytes of the snapshot)");
        }
        ByteBuffer trailer = ByteBuffer.allocate((int) bytes);
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            while (trailer.hasRemaining() && channel.read(trailer, o.size() - bytes + trailer.position()) >= 0) {
                // read the whole trailer
            }
            channel.truncate(o.size() - bytes);
        }
        trailer.flip();
        List<KnownRequest> requests = new ArrayList<>(o.requestIds());
        try {
            while (trailer.remaining() >= KnownRequest.BYTES) {
                requests.add(KnownRequest.readFrom(trailer));
            }
        } catch (IllegalArgumentException e) {
            throw new IOException("a request id at the end of the snapshot: " + e.getMessage(), e);
        }
        return requests;
    }

    private static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
