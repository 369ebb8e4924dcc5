package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.internal.wire.RequestId;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery phase 1: what the service applied, whatever a crash took from its store or from the log. */
class InternalSyncTest {
    @TempDir
    Path dir;

    @Test
    void findsTheBoundaryFromAnyHintWithFewChecks() {
        for (long boundary = 0; boundary <= 300; boundary += 7) {
            for (long hint = 0; hint <= 320; hint += 11) {
                long k = boundary;
                AtomicLong calls = new AtomicLong();
                LongPredicate check = lsn -> {
                    calls.incrementAndGet();
                    return lsn <= k;
                };
                assertThat(InternalSync.highestApplied(hint, check)).as("boundary %d, hint %d", k, hint).isEqualTo(k);
                assertThat(calls.get()).as("checks for boundary %d, hint %d", k, hint).isLessThanOrEqualTo(20);
            }
        }
        assertThat(InternalSync.highestApplied(1_000_000, lsn -> lsn <= 3)).isEqualTo(3);
        assertThat(InternalSync.highestApplied(3, lsn -> lsn <= 5_000_000)).isEqualTo(5_000_000);
    }

    /** The store lost commits the (forced) committed mark still claims: CHECK wins and the mark follows it. */
    @Test
    void aStoreBehindTheCommittedMarkIsReExecutedFromWhereItReallyIs() {
        Path directory = dir.resolve("behind");
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            appendAll(log, 1, 40);
            log.markCommitted(40);
        }
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            assertThat(log.committedLsn()).isEqualTo(40);
            assertThat(InternalSync.withCheck("p", log, lsn -> lsn <= 12)).isEqualTo(12);
            assertThat(log.committedLsn()).isEqualTo(12);
            assertThat(log.lostTailEnd()).isZero();
            log.truncateAfter(20);   // allowed again: records 13.. are not applied
        }
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            assertThat(log.committedLsn()).as("the lowered mark was saved").isEqualTo(12);
        }
    }

    /**
     * A primary elected in majority mode logs a no-op (or a configuration) and may crash before it
     * commits; the next primary may write another record at that LSN. Counted as applied on restart,
     * the record could never be replaced, and the replica would find itself diverged.
     */
    @Test
    void aTailOfNeverExecutedRecordsAboveTheCommittedMarkIsNotCountedAsApplied() {
        try (RedoLog log = RedoLog.open(dir.resolve("noop-tail"), FsyncPolicy.GROUP)) {
            appendAll(log, 1, 3);
            log.markCommitted(3);
            for (RecordKind kind : List.of(RecordKind.NOOP, RecordKind.CONFIG)) {
                long lsn = log.lastLsn() + 1;
                log.append(new LogRecord(lsn, 2, kind, RequestId.NONE, "a", 0, "", new byte[0])).join();
            }
            assertThat(InternalSync.withCheck("p", log, lsn -> lsn <= 3)).isEqualTo(3);
            log.truncateAfter(3);   // allowed: the tail is not applied
        }
    }

    @Test
    void aStoreAheadOfTheMarkIsFoundByCheck() {
        try (RedoLog log = RedoLog.open(dir.resolve("ahead"), FsyncPolicy.GROUP)) {
            appendAll(log, 1, 30);
            log.markCommitted(5);
            assertThat(InternalSync.withCheck("p", log, lsn -> lsn <= 27)).isEqualTo(27);
            assertThat(log.committedLsn()).isEqualTo(27);
        }
    }

    /**
     * Without CHECK nothing tells what the store durably holds: a power cut can take back commits
     * the forced committed mark counts, so every logged write is executed again.
     */
    @Test
    void withoutCheckEveryLoggedWriteRunsAgain() {
        Path directory = dir.resolve("nocheck");
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            appendAll(log, 1, 10);
            log.markCommitted(10);
        }
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            assertThat(InternalSync.withoutCheck("p", log)).isZero();
            assertThat(log.committedLsn()).isZero();
        }
    }

    @Test
    void trailingRepeatsCountAsApplied() {
        try (RedoLog log = RedoLog.open(dir.resolve("repeats"), FsyncPolicy.GROUP)) {
            appendAll(log, 1, 4);
            log.append(repeat(record(5))).join();
            log.append(repeat(record(6))).join();
            appendAll(log, 7, 8);
            assertThat(InternalSync.withCheck("p", log, lsn -> lsn <= 4)).isEqualTo(6);
        }
    }

    /**
     * The service applied writes past the log's end (log-sync none, then a machine crash): the log
     * must never take another write at those LSNs, which this replica would skip while its peers
     * execute it; only a primary's record of an epoch it could have applied, fetched from a peer.
     */
    @Test
    void aLostTailIsRefusedToAnyWriteThatCannotBeTheAppliedOne() throws Exception {
        Path directory = dir.resolve("lost");
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            log.persistEpoch(3);
            appendAll(log, 1, 10);
        }
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            assertThat(InternalSync.withCheck("p", log, lsn -> lsn <= 14)).isEqualTo(14);
            assertThat(log.committedLsn()).isEqualTo(10);
            assertThat(log.lostTailEnd()).isEqualTo(14);

            assertRefused(log.append(record(11, 4, 100)));   // a new primary's write (epoch 4 > 3)
            log.append(record(11, 3, 100)).get();            // a record of the lost tail, from a peer
            log.append(record(12, 3, 100)).get();
            log.append(record(13, 3, 100)).get();
            assertRefused(log.append(record(14, 5, 100)));
            log.append(record(14, 3, 100)).get();
            assertThat(log.lostTailEnd()).as("the log holds the lost tail again").isZero();
            log.append(record(15, 5, 100)).get();            // past it, anything goes
            assertThat(log.lastLsn()).isEqualTo(15);
        }
    }

    /** At level 1 LSNs are local and no record can be shown to be the lost one: all are refused. */
    @Test
    void aLevelOneLogTakesNothingInItsLostTail() {
        try (RedoLog log = RedoLog.open(dir.resolve("level1"), FsyncPolicy.GROUP)) {
            LongStream.rangeClosed(1, 3).forEach(lsn -> log.append(record(lsn, 0, 100)).join());
            assertThat(InternalSync.withCheck("p", log, lsn -> lsn <= 5)).isEqualTo(5);
            assertRefused(log.append(record(4, 0, 100)));
            assertThat(log.lastLsn()).isEqualTo(3);
        }
    }

    private static void assertRefused(CompletableFuture<Void> append) {
        assertThat(append).failsWithin(java.time.Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(LogException.class).withMessageContaining("cannot be it");
    }

    private static LogRecord repeat(LogRecord r) {
        return new LogRecord(r.lsn(), r.epoch(), RecordKind.REPEAT, r.requestId(), r.origin(), r.originSeq(),
                r.method(), r.payload());
    }

    private static void appendAll(RedoLog log, long from, long to) {
        LongStream.rangeClosed(from, to).forEach(lsn -> log.append(record(lsn)).join());
    }
}
