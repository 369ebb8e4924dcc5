package io.neptune.server.internal.log;

import io.neptune.core.internal.wire.RequestId;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * The in-memory view of a log's records: the file offset of every LSN, the epoch of every LSN (as
 * runs of equal epochs, which are few) and the LSNs of the most recent request ids, also of writes
 * before the log's start ({@link EarlierRequests}). The records start after a {@link LogBoundary},
 * LSN 0 for a log that was never truncated at its start.
 *
 * <p>Thread-safety: not thread-safe; {@link RedoLog} guards it with its lock.
 */
final class LogIndex {
    private long[] offsets = new long[1024];   // offsets[i]: file offset of LSN base + i + 1
    private int count;
    private long base;        // the LSN before the first record
    private long baseEpoch;   // its epoch
    private long end;
    private long[] runStarts = new long[8];    // runStarts[i]: first LSN with epoch runEpochs[i]
    private long[] runEpochs = new long[8];
    private int runs;
    private final RequestIdWindow requestIds;

    /** An empty index whose first record will start at {@code start}, remembering {@code requestIds} ids. */
    LogIndex(long start, int requestIds) {
        this(LogBoundary.NONE, start, requestIds);
    }

    /**
     * An empty index whose first record, {@code boundary.startLsn()}, will start at {@code start},
     * remembering {@code requestIds} ids.
     */
    LogIndex(LogBoundary boundary, long start, int requestIds) {
        this.base = boundary.lsn();
        this.baseEpoch = boundary.epoch();
        this.end = start;
        this.requestIds = new RequestIdWindow(requestIds);
    }

    long lastLsn() {
        return base + count;
    }

    /** The LSN of the first record (or of the next one, if there is none). */
    long startLsn() {
        return base + 1;
    }

    /** The epoch of the last record, that of the boundary if there is none. */
    long lastEpoch() {
        return runs == 0 ? baseEpoch : runEpochs[runs - 1];
    }

    /** The offset just past the last record. */
    long end() {
        return end;
    }

    /** Adds record {@code lsn}, which must be {@code lastLsn() + 1} and start at {@link #end()}. */
    void add(long lsn, long epoch, RequestId requestId, long offset, int frameBytes) {
        if (lsn != lastLsn() + 1 || offset != end) {
            throw new IllegalStateException("record " + lsn + " at " + offset + " (expected: record " + (lastLsn() + 1)
                    + " at " + end + ")");
        }
        if (count == Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("lsn: " + lsn + " (expected: <= " + count + ", the capacity of the index)");
        }
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, (int) Math.min(Integer.MAX_VALUE - 8L, count * 2L));
        }
        offsets[count++] = offset;
        end = offset + frameBytes;
        if (runs == 0 || runEpochs[runs - 1] != epoch) {
            if (runs == runStarts.length) {
                runStarts = Arrays.copyOf(runStarts, runs * 2);
                runEpochs = Arrays.copyOf(runEpochs, runs * 2);
            }
            runStarts[runs] = lsn;
            runEpochs[runs] = epoch;
            runs++;
        }
        requestIds.addIfAbsent(requestId, lsn);
    }

    /** The offset of record {@code lsn}, or {@link #end()} for {@code lastLsn() + 1}. */
    long offsetOf(long lsn) {
        long last = lastLsn();
        if (lsn <= base || lsn > last + 1) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: " + (base + 1) + ".." + (last + 1) + ")");
        }
        return lsn == last + 1 ? end : offsets[(int) (lsn - base - 1)];
    }

    /** The epoch of record {@code lsn}, which must exist or be the boundary. */
    long epochOf(long lsn) {
        if (lsn < base || lsn > lastLsn()) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: " + base + ".." + lastLsn() + ")");
        }
        if (lsn == base) {
            return baseEpoch;
        }
        int run = Arrays.binarySearch(runStarts, 0, runs, lsn);
        return runEpochs[run >= 0 ? run : -run - 2];
    }

    /**
     * The highest LSN in {@code from..to} such that records {@code from} up to it span at most
     * {@code maxBytes}; at least {@code from}.
     */
    long lastWithin(long from, long to, long maxBytes) {
        long limit = offsetOf(from) + maxBytes;
        long low = from;
        long high = to;
        while (low < high) {   // invariant: record low fits
            long mid = (low + high + 1) >>> 1;
            if (offsetOf(mid + 1) <= limit) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /** The LSN of the first logged record of request {@code id}, if it is among the most recent ones. */
    OptionalLong lsnOf(RequestId id) {
        long lsn = requestIds.lsnOf(id);
        return lsn < 0 ? OptionalLong.empty() : OptionalLong.of(lsn);
    }

    /**
     * Remembers that request {@code request.id()} was a write at or before {@code request.lsn()},
     * which is at or below the boundary: one of the writes before the log's start. Call before the
     * records are added, oldest first.
     */
    void addEarlier(KnownRequest request) {
        if (request.lsn() > base) {
            throw new IllegalArgumentException("lsn: " + request.lsn() + " (expected: <= " + base + ", the boundary)");
        }
        requestIds.addIfAbsent(request.id(), request.lsn());
    }

    /** The remembered request ids at or below {@code lsn}, oldest first. */
    List<KnownRequest> requestsUpTo(long lsn) {
        return requestIds.upTo(lsn);
    }

    /** Forgets every request id: the log now continues after a snapshot, whose writes may be others. */
    void forgetRequestIds() {
        requestIds.clear();
    }

    /**
     * Forgets every record before {@code boundary.startLsn()} and, if the boundary is at or past the
     * last record, every record: the file now starts with record {@code boundary.startLsn()} at
     * offset {@code headerBytes} (or is empty from there). Their request ids stay: the writes ran.
     */
    void dropBefore(LogBoundary boundary, int headerBytes) {
        long newBase = boundary.lsn();
        if (newBase < base) {
            throw new IllegalArgumentException("boundary lsn: " + newBase + " (expected: >= " + base + ")");
        }
        long keep = Math.max(0, lastLsn() - newBase);
        long shift = (keep == 0 ? end : offsets[(int) (newBase - base)]) - headerBytes;
        int from = (int) (count - keep);
        for (int i = 0; i < keep; i++) {
            offsets[i] = offsets[from + i] - shift;
        }
        count = (int) keep;
        end = end - shift;
        if (keep == 0) {
            end = headerBytes;
            runs = 0;
        } else {
            int firstRun = 0;
            while (firstRun + 1 < runs && runStarts[firstRun + 1] <= newBase + 1) {
                firstRun++;
            }
            System.arraycopy(runStarts, firstRun, runStarts, 0, runs - firstRun);
            System.arraycopy(runEpochs, firstRun, runEpochs, 0, runs - firstRun);
            runs -= firstRun;
            runStarts[0] = Math.max(runStarts[0], newBase + 1);
        }
        base = newBase;
        baseEpoch = boundary.epoch();
    }

    /** Forgets every record after {@code lsn}. */
    void truncateAfter(long lsn) {
        if (lsn < base || lsn > lastLsn()) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: " + base + ".." + lastLsn() + ")");
        }
        end = offsetOf(lsn + 1);
        count = (int) (lsn - base);
        while (runs > 0 && runStarts[runs - 1] > lsn) {
            runs--;
        }
        requestIds.removeAbove(lsn);
    }
}
