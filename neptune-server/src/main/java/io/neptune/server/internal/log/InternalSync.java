package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery phase 1, internal sync ({@code docs/protocols/replication.md}, "Recovery"): how far the
 * service applied its partition's log, so that nothing is applied twice and nothing applied is
 * skipped, whatever a crash took from the service's store or from the log.
 *
 * <ul>
 *   <li>With a CHECK callback, CHECK decides: the applied LSN is the highest {@code n} such that
 *       the writes up to {@code n} were applied (a {@link RecordKind#REPEAT} counts as applied once
 *       the writes before it are). The log's committed mark is only where the search starts, and
 *       is reset to the answer: after a machine crash the store may have lost commits the mark
 *       (saved lazily, but forced) still claims. The search gallops from the mark, then bisects,
 *       so a store that lost many writes costs a few dozen CHECKs, not one per write.</li>
 *   <li>Without CHECK, nothing tells what the store durably holds (a power cut can take back
 *       commits the mark counts; an in-memory store holds nothing after a restart), so every
 *       logged write is executed again: such services must make their writes idempotent.</li>
 *   <li>If CHECK reports writes applied past the log's end, the log lost its tail (it was written
 *       with {@code log-sync: none} and the machine crashed). The replica must get those records
 *       back from a peer: the log refuses, at those LSNs, records that cannot be the applied
 *       writes ({@link Log#lostTailEnd()}), so this replica never assigns one of those LSNs to
 *       another write, which it would skip while the other replicas execute it.</li>
 * </ul>
 *
 * <p>Thread-safety: stateless; call it on the partition's executor before anything else touches the
 * log or the service.
 */
public final class InternalSync {
    private static final Logger logger = LoggerFactory.getLogger(InternalSync.class);

    private InternalSync() {}

    /**
     * Finds the applied LSN with the service's CHECK callback {@code isApplied}, resets the log's
     * committed mark to it (or to the log's end, if it is past it) and guards a lost tail.
     *
     * @param name the partition replica, for log lines
     * @return the LSN of the last write the service applied; may exceed {@link Log#lastLsn()}
     */
    public static long withCheck(String name, Log log, LongPredicate isApplied) {
        requireNonNull(name, "name");
        requireNonNull(log, "log");
        requireNonNull(isApplied, "isApplied");
        long mark = log.committedLsn();
        long applied = highestApplied(mark, isApplied);
        long known = applied;   // applied by CHECK's word, or a repeat (level 1 counts those as its own)
        while (true) {
            if (isApplied.test(applied + 1)) {
                known = ++applied;
            } else if (isNotExecuted(log, applied + 1)) {
                // never executed, so CHECK need not know it (asked second: it reads the log)
                applied++;
                if (log.record(applied).map(r -> r.kind() == RecordKind.REPEAT).orElse(false)) {
                    known = applied;
                }
            } else {
                break;
            }
        }
        // A no-op or configuration record at the tail counts as applied only below the committed mark: one a
        // majority-mode primary logged just before it crashed may never have committed, and the next primary may
        // write another record at its LSN, which log matching must then be free to take.
        applied = Math.max(known, Math.min(applied, mark));
        long last = log.lastLsn();
        if (applied > last) {
            logger.error("{}: [NEP-LOG-001] the service applied writes up to LSN {} but the log ends at {}: the log"
                    + " lost its tail (log-sync none and a machine crash); this replica takes those records only from a"
                    + " peer that has them, and assigns none of those LSNs (docs/OPERATIONS.md, 'Machine crashes')",
                    name, applied, last);
            log.refuseOtherWritesUpTo(applied, log.epoch());
        } else if (applied < mark) {
            logger.warn("{}: [NEP-LOG-003] the service applied up to LSN {} but the log's committed mark says {}: the"
                    + " service's store lost {} writes (a machine crash); executing them again from the log", name,
                    applied, mark, mark - applied);
        }
        log.resetCommitted(Math.min(applied, last));
        return applied;
    }

    /**
     * For a service without CHECK: every logged write is executed again, so the applied LSN is 0 and
     * the log's committed mark is reset to it.
     *
     * @param name the partition replica, for log lines
     * @return 0
     */
    public static long withoutCheck(String name, Log log) {
        requireNonNull(name, "name");
        requireNonNull(log, "log");
        if (log.lastLsn() > 0) {
            logger.info("{}: the service has no @Check: executing all {} logged writes again", name, log.lastLsn());
        }
        log.resetCommitted(0);
        return 0;
    }

    /**
     * The highest {@code n >= 0} with {@code isApplied(n)} (0 counts as applied), for a CHECK that
     * holds for a prefix of the LSNs: gallops from {@code hint} towards the boundary, then bisects.
     */
    static long highestApplied(long hint, LongPredicate isApplied) {
        long low;    // applied (or 0)
        long high;   // not applied
        if (hint > 0 && !isApplied.test(hint)) {
            high = hint;
            low = hint - 1;
            for (long step = 1; low > 0 && !isApplied.test(low); step <<= 1) {
                high = low;
                low = Math.max(0, hint - (step << 1));
            }
        } else {
            low = hint;
            high = hint + 1;
            for (long step = 1; isApplied.test(high); step <<= 1) {
                low = high;
                high = hint + (step << 1);
            }
        }
        while (high - low > 1) {
            long middle = low + (high - low) / 2;
            if (isApplied.test(middle)) {
                low = middle;
            } else {
                high = middle;
            }
        }
        return low;
    }

    private static boolean isNotExecuted(Log log, long lsn) {
        // a repeat, a new primary's no-op or a configuration: never executed, so CHECK need not know it
        return lsn >= log.startLsn() && lsn <= log.lastLsn() && log.record(lsn).map(r -> !r.kind().executes()).orElse(false);
    }
}
