package io.neptune.server.internal.replication.runtime;

import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.OriginBase;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.PullReply;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * What a level-1 replica ({@link WriteAnywhereReplica}) holds of each origin's writes: the highest
 * sequence it logged, the highest it logged durably (what it asks its peers for the writes after),
 * where below its log's start the writes went with a checkpoint or a snapshot ({@link OriginBase}),
 * and the local LSN of each write it still holds, by sequence. From these it answers a peer's pull
 * with the writes the peer lacks, and tells how far the log may be cut at a checkpoint.
 *
 * <p>Thread-safety: confined to the partition's serial executor, like its replica.
 */
final class OriginIndex {
    /** The most writes one pull reply carries; the puller asks again for the rest. */
    private static final int MAX_PULL = 2_000;

    /** Per origin, the highest sequence durably logged here: a pull asks for the writes after it. */
    private final Map<String, Long> seen = new HashMap<>();
    /**
     * Per origin, the highest sequence the log took, durable or not yet: the next write of that
     * origin to log here is the one after it. A record the log refuses is not taken, so the
     * origin's later writes wait for it (they are gaps the next pull fills).
     */
    private final Map<String, Long> logged = new HashMap<>();
    /** Per origin, the local LSN of each of its writes, by sequence: a pull reads only what the puller lacks. */
    private final Map<String, LsnsBySeq> byOrigin = new HashMap<>();
    /**
     * Per origin, the highest sequence below the log's start ({@link OriginBase}): dropped after a
     * checkpoint or held by an installed snapshot. A pull that asks for one of those is told they are gone.
     */
    private final Map<String, Long> base = new HashMap<>();

    /** Starts from what went below the log's start before this node started ({@link OriginBase#read}). */
    void restore(Map<String, Long> dropped) {
        base.putAll(dropped);
        base.forEach((origin, seq) -> {
            seen.merge(origin, seq, Math::max);
            logged.merge(origin, seq, Math::max);
        });
    }

    /** A record of the log as this node started: logged, and durable. */
    void recovered(LogRecord record) {
        seen.merge(record.origin(), record.originSeq(), Math::max);
        took(record);
    }

    /** The log took {@code record} (it is readable at its LSN): its origin's next write to log here is the one after. */
    void took(LogRecord record) {
        logged.merge(record.origin(), record.originSeq(), Math::max);
        byOrigin.computeIfAbsent(record.origin(), o -> new LsnsBySeq(base.getOrDefault(o, 0L)))
                .put(record.originSeq(), record.lsn());
    }

    /** {@code record} is durable here: a pull no longer asks for it. */
    void durable(LogRecord record) {
        seen.merge(record.origin(), record.originSeq(), Math::max);
    }

    /** The log took {@code record} and then failed writing it: it and its origin's later writes count as not logged. */
    void failed(LogRecord record) {
        logged.computeIfPresent(record.origin(), (origin, seq) -> Math.min(seq, record.originSeq() - 1));
    }

    /** The highest sequence of {@code origin} the log took, durable or not. */
    long logged(String origin) {
        return logged.getOrDefault(origin, 0L);
    }

    /** Per origin, the highest sequence durably logged here, as a pull sends it. */
    Map<String, Long> seen() {
        return Map.copyOf(seen);
    }

    /**
     * The durable writes ({@code durable}: the log's durable end) a puller that has seen
     * {@code theirs} lacks, read through {@code records}, at most {@code maxBytes} of them (their
     * wire size) and {@value #MAX_PULL} writes; {@code gone}, the origins whose writes it lacks went
     * below the log's start. Only durable ones: a write of this origin that is still in the log's
     * queue is lost if this node crashes, and its sequence is then reused for another write, which a
     * peer that already has the lost one would never take.
     */
    PullReply missing(Map<String, Long> theirs, long durable, LongFunction<Optional<LogRecord>> records,
            long maxBytes) {
        List<Entry> out = new ArrayList<>();
        Map<String, Long> gone = null;
        for (Map.Entry<String, Long> dropped : base.entrySet()) {
            if (theirs.getOrDefault(dropped.getKey(), 0L) < dropped.getValue()) {
                gone = gone == null ? new HashMap<>() : gone;
                gone.put(dropped.getKey(), dropped.getValue());
            }
        }
        long bytes = 0;
        for (Map.Entry<String, LsnsBySeq> origin : byOrigin.entrySet()) {
            LsnsBySeq lsns = origin.getValue();
            if (gone != null && gone.containsKey(origin.getKey())) {
                continue; // its writes here start after a gap the puller must fill first
            }
            for (long seq = theirs.getOrDefault(origin.getKey(), 0L) + 1; seq <= lsns.last(); seq++) {
                if (out.size() >= MAX_PULL) {
                    return new PullReply(out, true, gone);
                }
                long lsn = lsns.lsn(seq);
                if (lsn > durable) {
                    break; // an origin's writes are logged in sequence: the later ones are not durable either
                }
                LogRecord r = records.apply(lsn).orElse(null);
                if (r == null) {
                    continue;
                }
                bytes += ReplicaCore.wireBytes(r);
                if (bytes > maxBytes && !out.isEmpty()) {
                    return new PullReply(out, true, gone); // the rest in the next pull: one reply must fit in a frame
                }
                out.add(Entry.of(r));
            }
        }
        return new PullReply(out, false, gone);
    }

    /**
     * The LSN of the first write held here that one of {@code peers} (what each has durably seen)
     * lacks, or {@link Long#MAX_VALUE}: a checkpoint keeps the log from there.
     */
    long firstNeeded(Collection<Map<String, Long>> peers) {
        long neededFrom = Long.MAX_VALUE;
        for (Map.Entry<String, LsnsBySeq> origin : byOrigin.entrySet()) {
            long everyone = everyoneSeen(origin.getKey(), peers);
            LsnsBySeq lsns = origin.getValue();
            if (everyone < lsns.last()) {
                neededFrom = Math.min(neededFrom, lsns.lsn(Math.max(everyone + 1, lsns.first)));
            }
        }
        return neededFrom;
    }

    /**
     * The LSN of the first write of {@code origin} that one of {@code peers} lacks, or
     * {@link Long#MAX_VALUE}; all of them unless {@code everyPeerHeard} (a peer not heard from since
     * this node started may lack all of them).
     */
    long firstUnseen(String origin, Collection<Map<String, Long>> peers, boolean everyPeerHeard) {
        LsnsBySeq own = byOrigin.get(origin);
        if (own == null) {
            return Long.MAX_VALUE;
        }
        long everyone = everyPeerHeard ? everyoneSeen(origin, peers) : 0;
        return everyone >= own.last() ? Long.MAX_VALUE : own.lsn(Math.max(everyone + 1, own.first));
    }

    private static long everyoneSeen(String origin, Collection<Map<String, Long>> peers) {
        long everyone = Long.MAX_VALUE;
        for (Map<String, Long> theirs : peers) {
            everyone = Math.min(everyone, theirs.getOrDefault(origin, 0L));
        }
        return everyone;
    }

    /** Per origin, the highest sequence logged at or below {@code lsn} (which is at or above the log's boundary). */
    Map<String, Long> seenAt(long lsn) {
        Map<String, Long> at = new HashMap<>(base);
        byOrigin.forEach((origin, lsns) -> at.merge(origin, lsns.lastAtOrBelow(lsn), Math::max));
        return at;
    }

    /** A checkpoint is dropping the writes up to {@code dropped} (per origin) from the log. */
    void rebase(Map<String, Long> dropped) {
        base.clear();
        base.putAll(dropped);
    }

    /** The log's start moved past the writes {@link #rebase} named: their LSNs are forgotten. */
    void forgetDropped() {
        byOrigin.forEach((origin, lsns) -> lsns.dropThrough(base.getOrDefault(origin, 0L)));
    }

    /** The service now holds a snapshot with each origin's writes up to {@code installed}; the log restarted after it. */
    void installed(Map<String, Long> installed) {
        base.clear();
        base.putAll(installed);
        seen.clear();
        seen.putAll(installed);
        logged.clear();
        logged.putAll(installed);
        byOrigin.clear();
    }

    /**
     * A growable map from an origin's write sequences after {@code first - 1} (those below went with
     * a checkpoint) to the local LSN each was logged at; an origin's writes are logged in sequence,
     * so its LSNs rise with it.
     */
    private static final class LsnsBySeq {
        private long first;
        private long[] lsns = new long[16];
        private int size;

        LsnsBySeq(long dropped) {
            this.first = dropped + 1;
        }

        void put(long seq, long lsn) {
            if (seq < first) {
                return; // dropped already: the checkpoint's base was written just before a crash took the cut
            }
            if (seq - first >= Integer.MAX_VALUE) {
                throw new IllegalArgumentException("seq: " + seq + " (expected: " + first + ".."
                        + (first + Integer.MAX_VALUE - 1) + ")");
            }
            int index = (int) (seq - first);
            if (index >= lsns.length) {
                lsns = Arrays.copyOf(lsns, Math.max(index + 1, lsns.length * 2));
            }
            lsns[index] = lsn;
            size = Math.max(size, index + 1);
        }

        /** The highest sequence held ({@code first - 1} if none). */
        long last() {
            return first - 1 + size;
        }

        /** The LSN of {@code seq}, or 0 if it went with a checkpoint. */
        long lsn(long seq) {
            return seq < first ? 0 : lsns[(int) (seq - first)];
        }

        /** The highest sequence logged at or below {@code lsn}, or {@code first - 1} if none. */
        long lastAtOrBelow(long lsn) {
            int lo = 0;
            int hi = size - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (lsns[mid] <= lsn) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return first + found;
        }

        /** Forgets the sequences up to {@code dropped}. */
        void dropThrough(long dropped) {
            if (dropped < first) {
                return;
            }
            int n = (int) Math.min(size, dropped - first + 1);
            lsns = Arrays.copyOfRange(lsns, n, n + Math.max(16, size - n));
            size -= n;
            first = size == 0 ? dropped + 1 : first + n;
        }
    }
}
