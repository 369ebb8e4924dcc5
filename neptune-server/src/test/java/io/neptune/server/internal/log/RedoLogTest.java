package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.record;
import static io.neptune.server.internal.log.TestRecords.requestId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.internal.wire.RequestId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedoLogTest {
    @TempDir
    Path dir;

    @Test
    void appendedRecordsReadBackInOrder() {
        List<LogRecord> appended = LongStream.rangeClosed(1, 100).mapToObj(TestRecords::record).toList();
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).isZero();
            assertThat(log.read(1, 10)).isEmpty();
            appendAll(log, appended);

            assertThat(log.lastLsn()).isEqualTo(100);
            assertThat(log.lastEpoch()).isEqualTo(1);
            assertThat(log.read(1, 1000)).containsExactlyElementsOf(appended);
            assertThat(log.read(95, 10)).containsExactlyElementsOf(appended.subList(94, 100));
            assertThat(log.read(10, 3)).containsExactlyElementsOf(appended.subList(9, 12));
            assertThat(log.read(101, 10)).isEmpty();
            assertThat(log.read(5, 0)).isEmpty();
            assertThat(log.record(50)).contains(appended.get(49));
            assertThat(log.record(101)).isEmpty();
            assertThat(log.lsnOf(requestId(42))).hasValue(42);
            assertThat(log.lsnOf(RequestId.random())).isEmpty();
        }
    }

    @Test
    void recordsAreReadableAsSoonAsAppendReturns() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.ALWAYS)) {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (long lsn = 1; lsn <= 300; lsn++) {
                done.add(log.append(record(lsn)));
                assertThat(log.record(lsn)).contains(record(lsn));
                assertThat(log.read(Math.max(1, lsn - 5), 10)).hasSize((int) Math.min(lsn, 6)).last()
                        .isEqualTo(record(lsn));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
            assertThat(log.read(1, 300)).hasSize(300);
        }
    }

    @Test
    void reopenRestoresRecordsEpochCommittedLsnAndRequestIds() {
        List<LogRecord> appended = new ArrayList<>();
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            log.persistEpoch(3);
            for (long lsn = 1; lsn <= 20; lsn++) {
                appended.add(record(lsn, lsn <= 10 ? 2 : 3, 512));
            }
            appendAll(log, appended);
            log.markCommitted(17);
        }
        for (int round = 0; round < 2; round++) {
            try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
                assertThat(log.lastLsn()).isEqualTo(20);
                assertThat(log.lastEpoch()).isEqualTo(3);
                assertThat(log.epoch()).isEqualTo(3);
                assertThat(log.committedLsn()).isEqualTo(17);
                assertThat(log.read(1, 100)).containsExactlyElementsOf(appended);
                assertThat(log.lsnOf(requestId(1))).hasValue(1);
                assertThat(log.lsnOf(requestId(20))).hasValue(20);
            }
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.NONE)) {
            log.append(record(21, 3, 512)).join();
            assertThat(log.read(20, 5)).containsExactly(appended.get(19), record(21, 3, 512));
        }
    }

    /** {@code request-id-window}: the log remembers exactly the ids of its last N writes, before and after a reopen. */
    @Test
    void aLogRemembersTheRequestIdsOfItsWindowOnly() {
        try (LogWriterPool pool = new LogWriterPool("test-window", 1)) {
            try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP, pool, 10)) {
                appendAll(log, LongStream.rangeClosed(1, 25).mapToObj(TestRecords::record).toList());
                assertThat(log.lsnOf(requestId(15))).isEmpty();
                assertThat(log.lsnOf(requestId(16))).hasValue(16);
                assertThat(log.lsnOf(requestId(25))).hasValue(25);
            }
            try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP, pool, 10)) {
                assertThat(log.lsnOf(requestId(15))).isEmpty();
                assertThat(log.lsnOf(requestId(16))).hasValue(16);
            }
            try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP, pool, 20)) {
                assertThat(log.lsnOf(requestId(6))).as("a wider window after a restart").hasValue(6);
            }
        }
    }

    @Test
    void appendOutOfSequenceThrows() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThatThrownBy(() -> log.append(record(2))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lsn: 2 (expected: 1, the next LSN)");
            log.append(record(1, 5, 10)).join();
            assertThatThrownBy(() -> log.append(record(1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lsn: 1 (expected: 2, the next LSN)");
            assertThatThrownBy(() -> log.append(record(2, 4, 10))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("epoch: 4 (expected: >= 5, the epoch of record 1)");
            assertThat(log.lastLsn()).isEqualTo(1);
            log.append(record(2, 5, 10)).join();
        }
    }

    @Test
    void truncateAfterRemovesTheSuffixDurably() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            for (long lsn = 1; lsn <= 10; lsn++) {
                log.append(record(lsn, lsn <= 4 ? 1 : 2, 300));   // not joined: truncation follows queued appends
            }
            log.markCommitted(3);
            assertThatThrownBy(() -> log.truncateAfter(2)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lsn: 2 (expected: >= 3, the committed LSN)");

            log.truncateAfter(4);
            assertThat(log.lastLsn()).isEqualTo(4);
            assertThat(log.lastEpoch()).isEqualTo(1);
            assertThat(log.read(1, 100)).extracting(LogRecord::lsn).containsExactly(1L, 2L, 3L, 4L);
            assertThat(log.lsnOf(requestId(5))).isEmpty();
            assertThat(log.lsnOf(requestId(4))).hasValue(4);
            log.truncateAfter(4);   // nothing after 4: no-op
            log.truncateAfter(9);

            log.append(record(5, 7, 100)).join();
            assertThat(log.record(5)).contains(record(5, 7, 100));
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).isEqualTo(5);
            assertThat(log.lastEpoch()).isEqualTo(7);
            assertThat(log.read(4, 10)).containsExactly(record(4, 1, 300), record(5, 7, 100));
        }
    }

    @Test
    void readsRacingTruncationsSeeOneVersionOfTheLog() throws Exception {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.NONE)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    List<LogRecord> records = log.read(1, 60);
                    long epoch = 0;
                    for (int i = 0; i < records.size(); i++) {
                        LogRecord r = records.get(i);
                        assertThat(r.lsn()).isEqualTo(i + 1);
                        assertThat(r.epoch()).isGreaterThanOrEqualTo(epoch);
                        assertThat(r).isEqualTo(record(r.lsn(), r.epoch(), payloadFor(r.epoch())));
                        epoch = r.epoch();
                    }
                    reads.incrementAndGet();
                }
            });
            SplittableRandom random = new SplittableRandom(42);
            for (long epoch = 1; epoch <= 300 && !reader.isDone(); epoch++) {
                for (long lsn = log.lastLsn() + 1; lsn <= 50; lsn++) {
                    log.append(record(lsn, epoch, payloadFor(epoch)));
                }
                log.truncateAfter(random.nextLong(0, 50));
            }
            stop.set(true);
            reader.get(30, TimeUnit.SECONDS);
            assertThat(reads).hasPositiveValue();
        }
    }

    private static int payloadFor(long epoch) {
        return 50 + (int) (epoch * 37 % 400);   // sizes differ by epoch, so versions sit at different offsets
    }

    @Test
    void groupCommitSharesForcesAmongConcurrentAppends() throws Exception {
        int threads = 4;
        int perThread = 500;
        Object sequencer = new Object();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            List<Future<List<CompletableFuture<Void>>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    List<CompletableFuture<Void>> done = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        synchronized (sequencer) {   // the replication engine serializes LSN assignment
                            done.add(log.append(record(log.lastLsn() + 1, 1, 200)));
                        }
                    }
                    return done;
                }));
            }
            for (Future<List<CompletableFuture<Void>>> result : results) {
                for (CompletableFuture<Void> done : result.get(60, TimeUnit.SECONDS)) {
                    done.get(60, TimeUnit.SECONDS);
                }
            }
            int appends = threads * perThread;
            assertThat(log.lastLsn()).isEqualTo(appends);
            assertThat(log.forces()).isPositive().isLessThan(appends);
            assertThat(log.read(1, appends)).hasSize(appends)
                    .allSatisfy(r -> assertThat(r).isEqualTo(record(r.lsn(), 1, 200)));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBatchAppendedInOneCallIsWrittenWithOneForce() throws Exception {
        // A follower appends each replicate message's records together: one force for the batch, not one for
        // the first record (the writer woke at it) and another for the rest.
        try (RedoLog log = RedoLog.open(dir.resolve("batch"), FsyncPolicy.GROUP)) {
            for (int batch = 0; batch < 5; batch++) {
                long first = log.lastLsn() + 1;
                long forcesBefore = log.forces();
                List<CompletableFuture<Void>> done = log.appendAll(LongStream.range(first, first + 64)
                        .mapToObj(lsn -> record(lsn, 1, 200)).toList());
                assertThat(done).hasSize(64);
                assertThat(done.stream().distinct()).as("one future for the batch, not one per record").hasSize(1);
                CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                assertThat(log.forces() - forcesBefore).as("forces for batch " + batch).isEqualTo(1);
            }
            assertThat(log.read(1, 1000)).hasSize(5 * 64).allSatisfy(r -> assertThat(r).isEqualTo(record(r.lsn(), 1, 200)));
        }
    }

    @Test
    void aBatchWithAnLsnOutOfSequenceIsRefusedWhole() {
        try (RedoLog log = RedoLog.open(dir.resolve("gap"), FsyncPolicy.GROUP)) {
            assertThatThrownBy(() -> log.appendAll(List.of(record(1, 1, 10), record(3, 1, 10))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lsn: 3 (expected: 2");
            assertThat(log.lastLsn()).as("nothing of the refused batch").isZero();
        }
    }

    @Test
    void alwaysForcesEveryRecordAndNoneForcesNone() {
        try (RedoLog log = RedoLog.open(dir.resolve("always"), FsyncPolicy.ALWAYS)) {
            appendAll(log, LongStream.rangeClosed(1, 20).mapToObj(TestRecords::record).toList());
            assertThat(log.forces()).isEqualTo(20);
        }
        try (RedoLog log = RedoLog.open(dir.resolve("none"), FsyncPolicy.NONE)) {
            appendAll(log, LongStream.rangeClosed(1, 20).mapToObj(TestRecords::record).toList());
            assertThat(log.forces()).isZero();
        }
    }

    @Test
    void persistedEpochNeverGoesDown() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.epoch()).isZero();
            log.persistEpoch(5);
            log.persistEpoch(5);
            assertThatThrownBy(() -> log.persistEpoch(4)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("epoch: 4 (expected: >= 5, the persisted epoch)");
            assertThat(log.epoch()).isEqualTo(5);
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.epoch()).isEqualTo(5);
            assertThatThrownBy(() -> log.persistEpoch(0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /**
     * An epoch persisted on the writer is written after the records queued before it, is the log's
     * epoch once its future completes, and survives a reopen; the same epoch again is done at once.
     */
    @Test
    void anEpochPersistedOnTheWriterIsDurableOnceItsFutureCompletes() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            CompletableFuture<Void> appended = log.append(record(1));
            CompletableFuture<Void> persisted = log.persistEpochAsync(6);

            persisted.join();
            assertThat(appended).as("queued before the epoch, written before it").isDone();
            assertThat(log.epoch()).isEqualTo(6);
            assertThat(log.persistEpochAsync(6)).isCompleted();
            assertThatThrownBy(() -> log.persistEpochAsync(5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("epoch: 5 (expected: >= 6, the persisted epoch)");
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.epoch()).isEqualTo(6);
        }
    }

    @Test
    void committedLsnOnlyGoesUpAndNotPastTheLog() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendAll(log, LongStream.rangeClosed(1, 5).mapToObj(TestRecords::record).toList());
            log.markCommitted(4);
            log.markCommitted(2);
            assertThat(log.committedLsn()).isEqualTo(4);
            assertThatThrownBy(() -> log.markCommitted(6)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lsn: 6 (expected: 0..5)");
        }
    }

    @Test
    void closedLogRefusesChangesAndCloseIsIdempotent() {
        RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP);
        log.append(record(1)).join();
        log.close();
        log.close();
        assertThat(log.append(record(2))).isCompletedExceptionally();
        assertThatThrownBy(() -> log.truncateAfter(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> log.read(1, 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aLogOpenedWithoutAPoolWritesOnAThreadOfItsOwnNamedAfterTheDirectoryThatEndsOnClose() {
        RedoLog log = RedoLog.open(dir.resolve("p7"), FsyncPolicy.GROUP);
        log.append(record(1)).join();   // the thread starts with the first write
        List<Thread> writers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("neptune-log-p7")).toList();
        assertThat(writers).singleElement().satisfies(t -> {
            assertThat(t.getName()).isEqualTo("neptune-log-p7-0");
            assertThat(t.isDaemon()).isTrue();
        });
        log.close();
        assertThat(writers.get(0).isAlive()).isFalse();
    }

    @Test
    void fsyncPolicyConfigNames() {
        assertThat(FsyncPolicy.ofConfigName("always")).isEqualTo(FsyncPolicy.ALWAYS);
        assertThat(FsyncPolicy.ofConfigName("Group")).isEqualTo(FsyncPolicy.GROUP);
        assertThat(FsyncPolicy.NONE.configName()).isEqualTo("none");
        assertThat(FsyncPolicy.DEFAULT).isEqualTo(FsyncPolicy.GROUP);
        assertThatThrownBy(() -> FsyncPolicy.ofConfigName("sometimes")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fsync policy: 'sometimes' (expected: always, group or none)");
    }

    private static void appendAll(RedoLog log, List<LogRecord> records) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (LogRecord record : records) {
            done.add(log.append(record));
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
    }
}
