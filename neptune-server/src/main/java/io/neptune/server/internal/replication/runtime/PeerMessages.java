package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Election;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The internal peer protocol of replication ({@code docs/protocols/replication.md}): JSON records
 * carried as requests to the reserved service {@value #SERVICE}, whose name no user service can
 * take. Each method name is the record's name.
 */
final class PeerMessages {
    /** The reserved service name of the replication protocol. */
    static final String SERVICE = "$replication";

    private PeerMessages() {}

    /**
     * The largest epoch a message may carry: far above any a cluster reaches, and far enough below
     * {@link Long#MAX_VALUE} that the epoch after it does not overflow (a replica adopts a newer epoch
     * and persists it; one near the limit made every later election's epoch negative).
     */
    static final long MAX_EPOCH = Long.MAX_VALUE / 4;

    /** {@code value} if it is an epoch from 0 to {@link #MAX_EPOCH}, else an {@link IllegalArgumentException}. */
    static long checkEpoch(String name, long value) {
        if (value < 0 || value > MAX_EPOCH) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: 0.." + MAX_EPOCH + ")");
        }
        return value;
    }

    /** A log record on the wire; {@code kind} is a {@link RecordKind} name ({@code null}, from older peers: a write). */
    record Entry(long lsn, long epoch, String method, long idHigh, long idLow, String origin, long originSeq,
            byte[] payload, @Nullable String kind) {
        /** Rejects what no log record can be; a message is decoded (and refused) before it changes anything. */
        Entry {
            if (lsn < 1) {
                throw new IllegalArgumentException("entry lsn: " + lsn + " (expected: >= 1)");
            }
            checkEpoch("entry epoch", epoch);
            requireNonNull(method, "entry method");
            requireNonNull(origin, "entry origin");
            requireNonNull(payload, "entry payload");
            if (originSeq < 0) {
                throw new IllegalArgumentException("entry originSeq: " + originSeq + " (expected: >= 0)");
            }
            // refused here, not when the replica logs the entry (on its executor, where it answered nothing)
            if (kind != null && Arrays.stream(RecordKind.values()).noneMatch(k -> k.name().equals(kind))) {
                throw new IllegalArgumentException("entry kind: '" + kind + "' (expected: one of "
                        + Arrays.toString(RecordKind.values()) + ", or null for WRITE)");
            }
        }

        static Entry of(LogRecord r) {
            return new Entry(r.lsn(), r.epoch(), r.method(), r.requestId().high(), r.requestId().low(), r.origin(),
                    r.originSeq(), r.payload(), r.kind() == RecordKind.WRITE ? null : r.kind().name());
        }

        LogRecord toRecord(long lsn) {
            return toRecord(lsn, kind == null ? RecordKind.WRITE : RecordKind.valueOf(kind));
        }

        LogRecord toRecord(long lsn, RecordKind kind) {
            return new LogRecord(lsn, epoch, kind, new RequestId(idHigh, idLow), origin, originSeq, method, payload);
        }
    }

    /**
     * Primary → secondary: log these entries (in LSN order), which follow record {@code prevLsn} (of
     * epoch {@code prevEpoch}, written by {@code prevOrigin}); writes up to {@code commitLsn} may be
     * applied. A secondary whose record {@code prevLsn} differs refuses ({@code mismatch}): the logs
     * match up to a record only if they match up to every earlier one (the log-matching rule).
     * The short constructor (no previous record: {@code prevLsn} 0, which always matches) is for tests.
     */
    record Replicate(String service, int partition, String from, long epoch, long commitLsn, List<Entry> entries,
            long prevLsn, long prevEpoch, @Nullable String prevOrigin) {
        /**
         * Rejects a message no primary sends: entries must follow {@code prevLsn} one by one, and no
         * epoch may be out of range. Checked as the message is decoded, so a malformed one is refused
         * (INVALID_REQUEST) before a replica adopts its epoch or cuts its log.
         */
        Replicate {
            requireNonNull(service, "service");
            requireNonNull(from, "from");
            checkEpoch("epoch", epoch);
            checkEpoch("prevEpoch", prevEpoch);
            if (commitLsn < 0 || prevLsn < 0) {
                throw new IllegalArgumentException("commitLsn " + commitLsn + ", prevLsn " + prevLsn + " (expected: >= 0)");
            }
            entries = List.copyOf(requireNonNull(entries, "entries"));
            for (int i = 0; i < entries.size(); i++) {
                Entry entry = entries.get(i);
                if (entry.lsn() != prevLsn + 1 + i || entry.epoch() > epoch) {
                    throw new IllegalArgumentException("entries[" + i + "]: lsn " + entry.lsn() + ", epoch " + entry.epoch()
                            + " (expected: lsn " + (prevLsn + 1 + i) + ", one after another from prevLsn " + prevLsn
                            + ", epoch at most the message's " + epoch + ")");
                }
            }
        }

        Replicate(String service, int partition, String from, long epoch, long commitLsn, List<Entry> entries) {
            this(service, partition, from, epoch, commitLsn, entries, 0, 0, null);
        }
    }

    /**
     * Candidate → replica ({@code majority} mode): vote for me as primary of {@code epoch}. A
     * {@code preVote} only asks whether the vote would be granted and changes nothing, so a replica
     * cut off from the others never raises its epoch; a {@code transfer} comes from a replica the
     * primary handed its role to, and is granted although the primary was heard from lately.
     */
    record Vote(String service, int partition, String node, long epoch, long lastEpoch, long lastLsn, boolean preVote,
            boolean transfer) {
        /** Rejects an epoch out of range or a missing candidate, before a replica adopts the epoch. */
        Vote {
            requireNonNull(service, "service");
            requireNonNull(node, "node");
            checkEpoch("epoch", epoch);
            checkEpoch("lastEpoch", lastEpoch);
            if (lastLsn < 0) {
                throw new IllegalArgumentException("lastLsn: " + lastLsn + " (expected: >= 0)");
            }
        }

        /** This request as a voter weighs it ({@link Election#vote}). */
        Election.VoteRequest request() {
            return new Election.VoteRequest(epoch, new Election.LogEnd(lastEpoch, lastLsn), transfer, preVote);
        }
    }

    /** The answer to a {@link Vote}: granted or not, the voter's epoch, and why not. */
    record VoteReply(boolean granted, long epoch, String reason) {}

    /** Secondary → primary ({@code majority} mode, level 3): what is your commit point, while you surely lead? */
    record ReadIndex(String service, int partition) {
        /** Rejects a missing field, which Jackson leaves null. */
        ReadIndex {
            requireNonNull(service, "service");
        }
    }

    /**
     * The primary's answer to a {@link ReadIndex}: its commit point, given only while it holds its
     * lease, so no other primary committed anything the answer misses.
     */
    record ReadIndexReply(boolean ok, long epoch, long commitLsn) {}

    /**
     * Anyone → replica: report your replication state. An operator's request gets the service's
     * digest too; a fail-stop election's sets {@code withoutDigest}, since a digest hashes the whole
     * partition on its executor and the fail-over would wait for it. Null (the field absent, as
     * {@code admin replicas} and older nodes send it) asks for the digest.
     */
    record StatusRequest(String service, int partition, @Nullable Boolean withoutDigest) {
        /** Rejects a missing field, which Jackson leaves null. */
        StatusRequest {
            requireNonNull(service, "service");
        }

        /** An operator's request, with the digest. */
        StatusRequest(String service, int partition) {
            this(service, partition, null);
        }

        /** Whether the answer leaves the digest out. */
        boolean skipsDigest() {
            return Boolean.TRUE.equals(withoutDigest);
        }
    }

    /**
     * A replica's replication state, and its digest when the service has one; {@code logStart} is the
     * first LSN its REDO log still holds (1 until a checkpoint dropped records; 0 where unknown).
     */
    record ReplicaStatus(String node, String role, long epoch, long lastEpoch, long logEnd, long applied, int priority,
            String digest, long logStart) {}

    /** Recovering replica → primary: bring me up to date from my log end; include me when I reach yours. */
    record Join(String service, int partition, String node, long lastLsn, long lastEpoch) {
        /** Rejects a missing field, which Jackson leaves null. */
        Join {
            requireNonNull(service, "service");
            requireNonNull(node, "node");
        }
    }

    /**
     * Primary → recovering replica: truncate to {@code keepUpTo}, log {@code entries}, apply up to
     * {@code commitLsn}; {@code keepEpoch} and {@code keepOrigin} identify the primary's record at
     * {@code keepUpTo}, which the joiner's must match.
     */
    record JoinReply(boolean accepted, String reason, long epoch, long keepUpTo, long commitLsn, List<Entry> entries,
            boolean joined, long keepEpoch, String keepOrigin) {}

    /**
     * Secondary → primary: hand the role over to me. A caught-up secondary of higher priority asks on
     * its own; with {@code operator}, an operator ({@code move-primary}, {@code drain}) asked for it,
     * and the primary holds new writes until this secondary has every logged one ({@link Handoff}).
     */
    record Handover(String service, int partition, String node, long lastLsn,
            @JsonSetter(nulls = Nulls.AS_EMPTY) boolean operator) {
        /** Rejects a missing field, which Jackson leaves null. */
        Handover {
            requireNonNull(service, "service");
            requireNonNull(node, "node");
        }

        /** A handover by priority. */
        Handover(String service, int partition, String node, long lastLsn) {
            this(service, partition, node, lastLsn, false);
        }
    }

    /**
     * Operator (or a draining node) → secondary: take the primary role over from the live primary by
     * an operator's {@link Handover}; {@code pin}: then refuse handovers by priority (an operator's
     * {@code move-primary} chose this replica) until the role changes again. Answered with a
     * {@link PromoteReply} once this replica leads, or refused.
     */
    record TakeOver(String service, int partition, boolean pin) {
        /** Rejects a missing field, which Jackson leaves null. */
        TakeOver {
            requireNonNull(service, "service");
        }
    }

    /** The primary's answer: whether it stepped down, and its log end at that moment. */
    record HandoverReply(boolean accepted, String reason, long epoch, long logEnd) {}

    /** Level 1: writes made at an origin replica, for the others to apply once each. */
    record Gossip(String service, int partition, List<Entry> entries) {
        /** Rejects a missing field, which Jackson leaves null, and a null entry. */
        Gossip {
            requireNonNull(service, "service");
            entries = List.copyOf(requireNonNull(entries, "entries"));
        }
    }

    /**
     * Level 1: send me every write you have whose origin sequence is above what I have seen (durably):
     * {@code from}, the puller, lets the answering replica drop from its log what every peer has seen.
     */
    record Pull(String service, int partition, Map<String, Long> seen, @Nullable String from) {
        /** Rejects a missing field, which Jackson leaves null, and a null sequence. */
        Pull {
            requireNonNull(service, "service");
            seen = Map.copyOf(requireNonNull(seen, "seen"));
        }
    }

    /**
     * Level 1: the writes a {@link Pull} asked for; {@code truncated} if more were left for the next
     * pull (one reply must fit in a frame); {@code gone}, per origin whose next write the puller needs
     * was dropped here after a checkpoint, the highest sequence dropped (null if none): the puller
     * gets those from another peer, or installs a snapshot.
     */
    record PullReply(List<Entry> entries, boolean truncated, @Nullable Map<String, Long> gone) {
        PullReply(List<Entry> entries, boolean truncated) {
            this(entries, truncated, null);
        }
    }

    /** Primary → secondary it stopped waiting for: you missed writes; recover and join again. */
    record Demote(String service, int partition, long epoch) {
        /** Rejects a missing field, which Jackson leaves null. */
        Demote {
            requireNonNull(service, "service");
        }
    }

    /** An operator's request: make this replica the primary although not all configured replicas are back. */
    record Promote(String service, int partition) {
        /** Rejects a missing field, which Jackson leaves null. */
        Promote {
            requireNonNull(service, "service");
        }
    }

    /** The outcome of a {@link Promote}. */
    record PromoteReply(boolean accepted, String reason, long epoch) {}

    /**
     * A primary (or leader) → a replica that needs records below the primary's log start: install a
     * snapshot from {@code from}. Answered with an {@link io.neptune.server.internal.replication.protocol.Ack} naming the replica's log end.
     * {@code boundaryEpoch} is the epoch of the primary's record just below {@code logStart} (null from
     * a node that predates the field, so that a rolling upgrade still understands it: a missing
     * primitive is refused): the replica's log continues the primary's only if it holds that record
     * with that epoch.
     */
    record InstallSnapshot(String service, int partition, String from, long epoch, long logStart,
            @Nullable Long boundaryEpoch) {
        /** Rejects a missing field, which Jackson leaves null. */
        InstallSnapshot {
            requireNonNull(service, "service");
            requireNonNull(from, "from");
        }
    }

    /** Replica → the node it installs a snapshot from: offer me your current snapshot. */
    /** Asks for a snapshot of at least LSN {@code minLsn} (what the asker's own log starts after; 0: any). */
    record SnapshotRequest(String service, int partition, long minLsn) {
        /** Rejects a missing field, which Jackson leaves null. */
        SnapshotRequest {
            requireNonNull(service, "service");
        }
    }

    /**
     * The answer to a {@link SnapshotRequest}: not {@code ready} while the snapshot is being written
     * (ask again); else its id, the LSN, epoch and origin of its last write (the receiver's log
     * boundary), its size, SHA-256 and the chunk size its chunks come in; how many request ids of its
     * writes the file ends with ({@link SnapshotSource}); in {@code majority} mode the configuration
     * in force at the boundary ({@code docs/protocols/placement.md}: {@code "lsn epoch a,b,c"}, empty
     * or null where the replica set was implicit there).
     */
    record SnapshotOffer(boolean ready, String reason, String id, long lsn, long epoch, String origin, long size,
            String sha256, int chunkBytes, int requestIds, @Nullable String members) {
        /** An offer without a configuration. */
        SnapshotOffer(boolean ready, String reason, String id, long lsn, long epoch, String origin, long size,
                String sha256, int chunkBytes, int requestIds) {
            this(ready, reason, id, lsn, epoch, origin, size, sha256, chunkBytes, requestIds, null);
        }
    }

    /** Replica → snapshot source: send the chunk of snapshot {@code id} at {@code offset}. */
    record ChunkRequest(String service, int partition, String id, long offset) {
        /** Rejects a missing field, which Jackson leaves null. */
        ChunkRequest {
            requireNonNull(service, "service");
            requireNonNull(id, "id");
        }
    }

    /** A chunk of a snapshot and its CRC32C, or why there is none ({@code ok} false: the snapshot is gone). */
    record Chunk(boolean ok, String reason, long offset, byte[] data, int crc32c) {}

    /**
     * Operator → primary ({@code majority} mode, {@code docs/protocols/placement.md}): make {@code add}
     * a voter once it caught up, or {@code remove} no voter (one of them non-empty; both empty only
     * makes the implicit replica set explicit), within {@code timeoutMillis}. Answered with a
     * {@link ReconfigureReply} once the configuration committed, or refused.
     */
    record Reconfigure(String service, int partition, String add, String remove, long timeoutMillis) {
        /** Rejects a missing field, which Jackson leaves null. */
        Reconfigure {
            requireNonNull(service, "service");
            requireNonNull(add, "add");
            requireNonNull(remove, "remove");
        }
    }

    /**
     * The answer to a {@link Reconfigure}: whether the configuration committed, why not (starting with
     * a {@code NEP-PLACE-} code), and the voters in force when answered.
     */
    record ReconfigureReply(boolean accepted, String reason, List<String> voters) {}

    /**
     * Node → node: messages for several partitions that were ready together for the same connection
     * (heartbeats of one tick), in the order they were sent; each is handled as if it came alone and
     * the answers come back together in a {@link BatchReply}, in the same order. Only messages
     * without metadata travel in one.
     */
    record Batch(List<Batched> items) {}

    /** One message of a {@link Batch}: {@code message} is what {@code method} takes for {@code partition}. */
    record Batched(int partition, String method, Object message) {}

    /** The answers to a {@link Batch}, one per item and in its order. */
    record BatchReply(List<BatchAnswer> answers) {}

    /**
     * The answer to one item of a {@link Batch}: {@code status} a {@link io.neptune.core.internal.wire.Status}
     * name; the reply if {@code OK}, else why not.
     */
    record BatchAnswer(String status, @Nullable Object reply, @Nullable String error) {}
}
