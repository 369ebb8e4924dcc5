package io.neptune.server.internal.replication.runtime;

import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A secondary's side of the log-matching rule ({@code docs/protocols/replication.md}): it takes a
 * primary's entries only after its own record just before them is the primary's, and where one of
 * its records differs from the entry at the same LSN it drops its own from there (they were never
 * committed), so its log is always a prefix of the primary's. Without it, a secondary holding a tail
 * the new primary does not share (a deposed primary's last write) would apply its own records
 * under the new primary's commit point.
 *
 * <p>Thread-safety: runs on the partition's executor, like the {@link ReplicaCore} it changes.
 */
final class LogMatching {
    private static final Logger logger = LoggerFactory.getLogger(LogMatching.class);

    /** What became of a {@code replicate}. */
    enum Outcome {
        /** The entries are logged (or already were): the log matches the primary's up to {@link Result#match}. */
        MATCHED,
        /** The record before the entries is missing here; resend from {@link Result#match} + 1. */
        GAP,
        /** The record before the entries differs here; resend from {@link Result#match} + 1. */
        MISMATCH,
        /** An applied record differs from the primary's: this replica diverged and must be rebuilt. */
        DIVERGED
    }

    /**
     * The outcome, the LSN up to which this log is known to match the primary's (or, after a refusal,
     * from where the primary should resend), and the appends still on their way to the disk.
     */
    record Result(Outcome outcome, long match, List<CompletableFuture<Void>> appends) {}

    private LogMatching() {}

    /**
     * Logs the entries of {@code replicate}, which follow the primary's record {@code prevLsn} (of epoch
     * {@code prevEpoch}, written by {@code prevOrigin}). {@code compareOrigins} also compares the primary
     * that wrote each record, which only fail-stop mode needs (there a dead primary's epoch number may
     * be reused).
     */
    static Result accept(ReplicaCore core, Replicate replicate, boolean compareOrigins) {
        long prevLsn = replicate.prevLsn();
        long prevEpoch = replicate.prevEpoch();
        @Nullable String prevOrigin = replicate.prevOrigin();
        List<Entry> entries = replicate.entries();
        if (prevLsn > core.log.lastLsn()) {
            return new Result(Outcome.GAP, core.log.lastLsn(), List.of());
        }
        if (!same(core, prevLsn, prevEpoch, prevOrigin, compareOrigins)) {
            // everything applied is committed, so it is the primary's as well: resend from there
            return new Result(Outcome.MISMATCH, Math.min(prevLsn - 1, core.applied), List.of());
        }
        List<CompletableFuture<Void>> appends = new ArrayList<>();
        List<LogRecord> records = new ArrayList<>();   // past this log's end: no entry after them is compared
        long expected = prevLsn;
        for (Entry entry : entries) {
            expected++;
            if (entry.lsn() != expected) {
                throw new IllegalArgumentException("entry lsn: " + entry.lsn() + " (expected: " + expected
                        + ", entries follow each other)");
            }
            if (entry.lsn() <= core.log.lastLsn()) {
                if (same(core, entry.lsn(), entry.epoch(), entry.origin(), compareOrigins)) {
                    continue;
                }
                if (entry.lsn() <= core.applied) {
                    logger.error("{}: [NEP-REPL-003] applied record {} (epoch {} by {}) differs from the primary's"
                            + " (epoch {} by {}); this replica diverged and needs to be rebuilt", core.name,
                            entry.lsn(), core.log.epochOf(entry.lsn()), core.log.originOf(entry.lsn()), entry.epoch(),
                            entry.origin());
                    return new Result(Outcome.DIVERGED, entry.lsn() - 1, appends);
                }
                logger.info("{}: [NEP-REPL-005] dropping records {}..{}: record {} differs from the primary's"
                        + " (epoch {})", core.name, entry.lsn(), core.log.lastLsn(), entry.lsn(), entry.epoch());
                core.truncateAfter(entry.lsn() - 1);
            }
            records.add(entry.toRecord(entry.lsn()));
        }
        appends.addAll(core.appendAll(records));   // one step: the log forces the batch once
        return new Result(Outcome.MATCHED, expected, appends);
    }

    /**
     * Whether this log's record {@code lsn} is the primary's; LSN 0 always is, and so is every record
     * dropped below this log's boundary (only applied, hence committed, records are dropped).
     */
    static boolean same(ReplicaCore core, long lsn, long epoch, @Nullable String origin, boolean compareOrigins) {
        if (lsn == 0 || lsn < core.log.startLsn() - 1) {
            return true;
        }
        if (core.log.epochOf(lsn) != epoch) {
            return false;
        }
        if (!compareOrigins || origin == null || origin.isEmpty()) {
            return true;
        }
        String mine = core.log.originOf(lsn);
        return mine.isEmpty() || mine.equals(origin);
    }
}
