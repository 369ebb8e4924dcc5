package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.record;
import static io.neptune.server.internal.log.TestRecords.requestId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link Log} contract, checked against {@link RedoLog} (files in a temporary directory) and
 * {@link InMemoryLog}. Where they legitimately differ: a RedoLog's appends become durable on its
 * writer thread by its fsync policy, an InMemoryLog's when the test forces it ({@link Subject#sync});
 * a machine crash is expressible only on the InMemoryLog here (RedoLog's are in RedoLogKillIT and
 * RedoLogMachineCrashIT, with real processes and CrashFs).
 */
class LogContractTest {
    @TempDir
    Path dir;

    private Subject subject;

    /** A log under test and how to drive what the contract leaves to the implementation. */
    private interface Subject {
        Log log();

        /** Makes every appended record durable, or lets the log do so on its own; their futures then complete. */
        void sync();

        /** A clean restart: closes the log and opens it again. */
        void restart();

        /** As {@code RedoLog.refuseOtherWritesUpTo}, which {@link InternalSync} calls after open. */
        void refuseOtherWritesUpTo(long lsn, long epoch);
    }

    enum Kind {
        REDO_LOG {
            @Override
            Subject open(Path dir) {
                return new Subject() {
                    private RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP);

                    @Override
                    public Log log() {
                        return log;
                    }

                    @Override
                    public void sync() {
                        // nothing to do: the writer forces by its policy; the tests wait for the futures
                    }

                    @Override
                    public void restart() {
                        log.close();
                        log = RedoLog.open(dir, FsyncPolicy.GROUP);
                    }

                    @Override
                    public void refuseOtherWritesUpTo(long lsn, long epoch) {
                        log.refuseOtherWritesUpTo(lsn, epoch);
                    }
                };
            }
        },
        IN_MEMORY {
            @Override
            Subject open(Path dir) {
                InMemoryLog log = new InMemoryLog("test");
                return new Subject() {
                    @Override
                    public Log log() {
                        return log;
                    }

                    @Override
                    public void sync() {
                        log.force();
                    }

                    @Override
                    public void restart() {
                        log.close();
                        log.reopen();
                    }

                    @Override
                    public void refuseOtherWritesUpTo(long lsn, long epoch) {
                        log.refuseOtherWritesUpTo(lsn, epoch);
                    }
                };
            }
        };

        abstract Subject open(Path dir);
    }

    @AfterEach
    void closeLog() {
        if (subject != null) {
            subject.log().close();
        }
    }

    private Log open(Kind kind) {
        subject = kind.open(dir);
        return subject.log();
    }

    private static List<CompletableFuture<Void>> appendUpTo(Log log, long lastLsn) {
        return log.appendAll(LongStream.rangeClosed(log.lastLsn() + 1, lastLsn).mapToObj(lsn -> record(lsn)).toList());
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void appendedRecordsAreReadableAtOnceAndTheirFuturesCompleteWhenDurable(Kind kind) {
        Log log = open(kind);
        assertThat(log.lastLsn()).isZero();
        assertThat(log.startLsn()).isEqualTo(1);
        assertThat(log.boundary()).isEqualTo(LogBoundary.NONE);

        CompletableFuture<Void> first = log.append(record(1, 2, 100));
        List<CompletableFuture<Void>> rest = log.appendAll(List.of(record(2, 2, 100), record(3, 5, 100)));

        assertThat(log.lastLsn()).isEqualTo(3);
        assertThat(log.lastEpoch()).isEqualTo(5);
        assertThat(log.read(1, 10)).containsExactly(record(1, 2, 100), record(2, 2, 100), record(3, 5, 100));
        assertThat(log.read(2, 1)).containsExactly(record(2, 2, 100));
        assertThat(log.read(4, 10)).isEmpty();
        assertThat(log.record(3)).contains(record(3, 5, 100));
        assertThat(log.record(0)).isEmpty();
        assertThat(log.record(4)).isEmpty();
        assertThat(log.epochOf(0)).isZero();
        assertThat(log.epochOf(2)).isEqualTo(2);
        assertThat(log.epochOf(3)).isEqualTo(5);
        assertThat(log.originOf(0)).isEmpty();
        assertThat(log.originOf(2)).isEqualTo(record(2).origin());
        assertThat(log.originOf(4)).isEmpty();
        assertThat(rest).hasSize(2);

        subject.sync();

        assertThat(first).succeedsWithin(Duration.ofSeconds(10));
        assertThat(rest).allSatisfy(future -> assertThat(future).succeedsWithin(Duration.ofSeconds(10)));
        assertThat(log.hasFailed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anAppendOutOfSequenceIsRefusedAndAppendsNothing(Kind kind) {
        Log log = open(kind);
        appendUpTo(log, 2);

        assertThatThrownBy(() -> log.appendAll(List.of(record(3), record(5))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: 4");
        assertThatThrownBy(() -> log.append(record(3, 0, 10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: >= 1");
        assertThat(log.lastLsn()).isEqualTo(2);
        assertThatThrownBy(() -> log.read(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theCommittedLsnOnlyGoesUpAndNotPastTheLastRecord(Kind kind) {
        Log log = open(kind);
        appendUpTo(log, 5);

        log.markCommitted(4);
        log.markCommitted(2);

        assertThat(log.committedLsn()).isEqualTo(4);
        assertThatThrownBy(() -> log.markCommitted(6)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void truncateAfterRemovesTheSuffixAndItsRequestIdsAndAppendsContinueThere(Kind kind) {
        Log log = open(kind);
        appendUpTo(log, 6);
        log.markCommitted(2);

        assertThatThrownBy(() -> log.truncateAfter(1)).isInstanceOf(IllegalArgumentException.class);
        log.truncateAfter(3);
        log.truncateAfter(5);   // past the last record: nothing to do

        assertThat(log.lastLsn()).isEqualTo(3);
        assertThat(log.lsnOf(requestId(3))).hasValue(3);
        assertThat(log.lsnOf(requestId(4))).isEmpty();
        assertThat(log.requestsUpTo(10)).extracting(KnownRequest::lsn).containsExactly(1L, 2L, 3L);
        log.append(record(4, 3, 10));
        subject.sync();
        assertThat(log.record(4)).contains(record(4, 3, 10));
        subject.restart();
        assertThat(subject.log().read(1, 10)).extracting(LogRecord::lsn).containsExactly(1L, 2L, 3L, 4L);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void truncateBeforeDropsCommittedRecordsButKeepsTheBoundaryAndTheirRequestIds(Kind kind) {
        Log log = open(kind);
        appendUpTo(log, 5);
        log.markCommitted(3);

        assertThatThrownBy(() -> log.truncateBefore(5)).isInstanceOf(IllegalArgumentException.class);
        log.truncateBefore(4);
        log.truncateBefore(2);   // already dropped: nothing to do

        assertThat(log.startLsn()).isEqualTo(4);
        assertThat(log.boundary()).isEqualTo(new LogBoundary(3, 1, record(3).origin()));
        assertThat(log.epochOf(3)).isEqualTo(1);
        assertThat(log.originOf(3)).isEqualTo(record(3).origin());
        assertThat(log.read(4, 10)).containsExactly(record(4), record(5));
        assertThatThrownBy(() -> log.read(3, 1)).isInstanceOf(LogTruncatedException.class);
        assertThatThrownBy(() -> log.record(2)).isInstanceOf(LogTruncatedException.class);
        assertThatThrownBy(() -> log.epochOf(2)).isInstanceOf(LogTruncatedException.class);
        assertThat(log.lsnOf(requestId(1))).hasValue(1);
        assertThat(log.requestsUpTo(3)).extracting(KnownRequest::lsn).containsExactly(1L, 2L, 3L);

        subject.restart();

        Log reopened = subject.log();
        assertThat(reopened.startLsn()).isEqualTo(4);
        assertThat(reopened.boundary()).isEqualTo(new LogBoundary(3, 1, record(3).origin()));
        assertThat(reopened.lsnOf(requestId(2))).hasValue(2);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void restartAfterReplacesEveryRecordAndRequestIdWithTheSnapshots(Kind kind) {
        Log log = open(kind);
        appendUpTo(log, 3);
        LogBoundary snapshot = new LogBoundary(10, 4, "n1");
        List<KnownRequest> requests = List.of(new KnownRequest(requestId(9), 9), new KnownRequest(requestId(12), 12));

        assertThatThrownBy(() -> log.restartAfter(snapshot, List.of(requests.get(1), requests.get(0))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(log.lastLsn()).isEqualTo(3);
        log.restartAfter(snapshot, requests);

        assertThat(log.startLsn()).isEqualTo(11);
        assertThat(log.lastLsn()).isEqualTo(10);
        assertThat(log.lastEpoch()).isEqualTo(4);
        assertThat(log.committedLsn()).isEqualTo(10);
        assertThat(log.boundary()).isEqualTo(snapshot);
        assertThat(log.lsnOf(requestId(1))).isEmpty();
        assertThat(log.lsnOf(requestId(9))).hasValue(9);
        assertThat(log.lsnOf(requestId(12))).hasValue(10);   // lowered to the boundary
        assertThatThrownBy(() -> log.append(record(12, 4, 10))).isInstanceOf(IllegalArgumentException.class);
        log.append(record(11, 4, 10));
        subject.sync();

        subject.restart();

        assertThat(subject.log().boundary()).isEqualTo(snapshot);
        assertThat(subject.log().read(11, 10)).containsExactly(record(11, 4, 10));
        assertThat(subject.log().lsnOf(requestId(9))).hasValue(9);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRestartKeepsTheRecordsThePersistedEpochAndTheCommittedLsn(Kind kind) {
        Log log = open(kind);
        log.persistEpoch(3);
        log.persistEpoch(3);
        assertThatThrownBy(() -> log.persistEpoch(2)).isInstanceOf(IllegalArgumentException.class);
        appendUpTo(log, 4);
        log.markCommitted(2);

        subject.restart();

        Log reopened = subject.log();
        assertThat(reopened.epoch()).isEqualTo(3);
        assertThat(reopened.lastLsn()).isEqualTo(4);
        assertThat(reopened.committedLsn()).isEqualTo(2);
        assertThat(reopened.read(1, 10)).containsExactly(record(1), record(2), record(3), record(4));
        assertThat(reopened.lsnOf(requestId(4))).hasValue(4);
        assertThat(reopened.lostTailEnd()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aLostTailAdmitsOnlyAPrimarysRecordsNoNewerThanTheEpochWhenItWasFound(Kind kind) {
        Log log = open(kind);
        appendUpTo(log, 1);
        subject.refuseOtherWritesUpTo(3, 2);
        assertThat(log.lostTailEnd()).isEqualTo(3);

        List<CompletableFuture<Void>> futures = log.appendAll(List.of(record(2, 2, 10), record(3, 3, 10)));

        assertThat(log.lastLsn()).isEqualTo(2);
        assertThat(log.lostTailEnd()).isEqualTo(3);
        assertThat(futures.get(1)).failsWithin(0, TimeUnit.SECONDS);
        assertThatThrownBy(futures.get(1)::join).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(LogException.class);
        assertThat(log.hasFailed()).isFalse();
        log.append(record(3, 2, 10));
        assertThat(log.lostTailEnd()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aClosedLogRefusesAppends(Kind kind) {
        Log log = open(kind);
        log.close();
        log.close();

        assertThatThrownBy(log.append(record(1))::join).hasCauseInstanceOf(IllegalStateException.class);
    }

    // InMemoryLog only: RedoLog's crashes need a killed process or CrashFs (RedoLogKillIT, RedoLogMachineCrashIT)

    @Test
    void aCrashLosesWhatWasNotForcedAndItsFuturesNeverComplete() {
        InMemoryLog log = new InMemoryLog("crash");
        appendUpTo(log, 2);
        log.markCommitted(2);
        log.forceUpTo(2);
        log.persistEpoch(4);
        List<CompletableFuture<Void>> unsynced = appendUpTo(log, 5);
        log.markCommitted(5);

        log.crash(false);

        assertThat(log.lastLsn()).isEqualTo(2);
        assertThat(log.durableLsn()).isEqualTo(2);
        assertThat(log.committedLsn()).isEqualTo(2);
        assertThat(log.epoch()).isEqualTo(4);
        assertThat(log.lsnOf(requestId(3))).isEmpty();
        assertThat(unsynced).allSatisfy(future -> assertThat(future).isNotDone());
        log.append(record(3, 4, 10));
        assertThat(log.record(3)).contains(record(3, 4, 10));
    }

    @Test
    void aCrashWithATornTailKeepsTheUnforcedRecordsButTheLast() {
        InMemoryLog log = new InMemoryLog("torn");
        appendUpTo(log, 1);
        log.force();
        appendUpTo(log, 4);

        log.crash(true);

        assertThat(log.lastLsn()).isEqualTo(3);
        assertThat(log.durableLsn()).isEqualTo(3);
        assertThat(log.read(1, 10)).containsExactly(record(1), record(2), record(3));
    }

    @Test
    void aForceCompletesOnlyTheAppendsWhoseRecordsAreAllDurable() {
        InMemoryLog log = new InMemoryLog("force");
        CompletableFuture<Void> first = log.append(record(1));
        List<CompletableFuture<Void>> batch = appendUpTo(log, 3);

        log.forceUpTo(2);

        assertThat(first).isCompleted();
        assertThat(batch.get(0)).isNotDone();   // one future for the batch, as RedoLog's
        log.force();
        assertThat(batch).allSatisfy(future -> assertThat(future).isCompleted());
    }
}
