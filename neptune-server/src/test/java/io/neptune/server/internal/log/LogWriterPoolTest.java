package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many logs on one {@link LogWriterPool}: its threads only, group commit and order per log, and the edges. */
class LogWriterPoolTest {
    @TempDir
    Path dir;

    @Test
    void sixtyFourLogsAreWrittenByThePoolsTwoThreadsAndNoOthers() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<RedoLog> logs = new ArrayList<>();
        try (LogWriterPool pool = new LogWriterPool("test-log-writer", 2)) {
            try {
                for (int i = 0; i < 64; i++) {
                    logs.add(RedoLog.open(dir.resolve("log-" + i), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY));
                }
                List<CompletableFuture<Void>> done = new ArrayList<>();
                for (long lsn = 1; lsn <= 10; lsn++) {
                    for (RedoLog log : logs) {
                        done.add(log.append(record(lsn, 1, 200)));
                    }
                }
                CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
                for (RedoLog log : logs) {
                    log.markCommitted(10);
                }

                List<Thread> started = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> !before.contains(t)).toList();
                assertThat(started).hasSizeBetween(1, 2)
                        .allSatisfy(t -> assertThat(t.getName()).matches("test-log-writer-[01]"));
                for (RedoLog log : logs) {
                    assertThat(log.read(1, 100)).hasSize(10).allSatisfy(r -> assertThat(r).isEqualTo(
                            record(r.lsn(), 1, 200)));
                }
            } finally {
                logs.forEach(RedoLog::close);
            }
            for (int i = 0; i < 64; i++) {   // closing wrote every log's meta file
                try (RedoLog log = RedoLog.open(dir.resolve("log-" + i), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY)) {
                    assertThat(log.lastLsn()).isEqualTo(10);
                    assertThat(log.committedLsn()).isEqualTo(10);
                }
            }
        }
    }

    @Test
    void aPoolRunsNoMoreThreadsThanItHasLogs() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (LogWriterPool pool = new LogWriterPool("test-log-writer-few", 8);
                RedoLog a = RedoLog.open(dir.resolve("a"), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY);
                RedoLog b = RedoLog.open(dir.resolve("b"), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY)) {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (long lsn = 1; lsn <= 50; lsn++) {   // 100 drains submitted at least: enough to start 8 threads
                done.add(a.append(record(lsn, 1, 100)));
                done.add(b.append(record(lsn, 1, 100)));
                CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
            }
            assertThat(Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t)).toList())
                    .hasSizeBetween(1, 2).allSatisfy(t -> assertThat(t.getName()).startsWith("test-log-writer-few-"));
        }
    }

    @Test
    void groupCommitSharesForcesPerLogOnAOneThreadPool() throws Exception {
        int logCount = 4;
        int perLog = 400;
        ExecutorService appenders = Executors.newFixedThreadPool(logCount);
        List<RedoLog> logs = new ArrayList<>();
        try (LogWriterPool pool = new LogWriterPool("test-log-writer", 1)) {
            try {
                for (int i = 0; i < logCount; i++) {
                    logs.add(RedoLog.open(dir.resolve("log-" + i), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY));
                }
                List<Future<?>> appended = new ArrayList<>();
                for (RedoLog log : logs) {
                    appended.add(appenders.submit(() -> {
                        List<CompletableFuture<Void>> done = new ArrayList<>();
                        for (long lsn = 1; lsn <= perLog; lsn++) {
                            done.add(log.append(record(lsn, 1, 200)));
                        }
                        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
                        return null;
                    }));
                }
                for (Future<?> result : appended) {
                    result.get(60, TimeUnit.SECONDS);
                }
                for (RedoLog log : logs) {
                    assertThat(log.lastLsn()).isEqualTo(perLog);
                    assertThat(log.forces()).isPositive().isLessThan(perLog);
                    assertThat(log.read(1, perLog)).hasSize(perLog);
                }
            } finally {
                logs.forEach(RedoLog::close);
                appenders.shutdownNow();
            }
        }
    }

    @Test
    void theAppendsOfEachLogCompleteInLsnOrder() {
        List<RedoLog> logs = new ArrayList<>();
        List<List<Long>> completed = new ArrayList<>();
        try (LogWriterPool pool = new LogWriterPool("test-log-writer", 3)) {
            try {
                for (int i = 0; i < 8; i++) {
                    logs.add(RedoLog.open(dir.resolve("log-" + i), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY));
                    completed.add(Collections.synchronizedList(new ArrayList<>()));
                }
                List<CompletableFuture<Void>> done = new ArrayList<>();
                for (long lsn = 1; lsn <= 300; lsn++) {
                    for (int i = 0; i < logs.size(); i++) {
                        List<Long> order = completed.get(i);
                        long appended = lsn;
                        // a callback on a future that already completed runs here, after the earlier ones ran
                        done.add(logs.get(i).append(record(lsn, 1, 100)).thenRun(() -> order.add(appended)));
                    }
                }
                CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
                for (List<Long> order : completed) {
                    assertThat(order).hasSize(300).isSorted();
                }
            } finally {
                logs.forEach(RedoLog::close);
            }
        }
    }

    @Test
    void aPoolThreadNeitherTruncatesNorWaitsForAClose() throws Exception {
        try (LogWriterPool pool = new LogWriterPool("test-log-writer", 1)) {
            RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY);
            try {
                log.append(record(1)).join();
                log.append(record(2)).join();
                CompletableFuture<Throwable> truncation = new CompletableFuture<>();
                pool.execute(() -> {
                    try {
                        log.truncateAfter(1);
                        truncation.complete(new AssertionError("truncateAfter returned"));
                    } catch (RuntimeException e) {
                        truncation.complete(e);
                    }
                });
                assertThat(truncation.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("truncateAfter on a log writer thread would wait for the log writers");
                assertThat(log.lastLsn()).isEqualTo(2);

                // the pool's only thread closes the log: waiting for the log's last drain would deadlock
                CompletableFuture<Void> closed = new CompletableFuture<>();
                pool.execute(() -> {
                    log.close();
                    closed.complete(null);
                });
                closed.get(30, TimeUnit.SECONDS);
                assertThat(log.append(record(3))).failsWithin(Duration.ofSeconds(30));
                CompletableFuture<Void> barrier = new CompletableFuture<>();
                pool.execute(() -> barrier.complete(null));   // runs after the log's last drain, queued before it
                barrier.get(30, TimeUnit.SECONDS);
            } finally {
                log.close();
            }
            try (RedoLog reopened = RedoLog.open(dir, FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY)) {
                assertThat(reopened.lastLsn()).isEqualTo(2);
            }
        }
    }

    @Test
    void aLogWhosePoolClosedFirstFailsItsNextChangeInsteadOfHanging() {
        RedoLog log = logWhosePoolClosed();
        try {
            assertThat(log.append(record(2))).failsWithin(Duration.ofSeconds(30)).withThrowableThat()
                    .havingRootCause().isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
            assertThat(log.hasFailed()).isTrue();
        } finally {
            log.close();   // returns: the writer has ended
        }
    }

    /**
     * A log whose writer failed refuses records, but an epoch still goes to the meta file, written in
     * place as it always was: a replica whose log failed still answers votes (a grant waits for its
     * epoch), where a refused write would leave each ballot unanswered and report a failed task.
     */
    @Test
    void aLogWhoseWriterFailedStillPersistsAnEpochInPlace() {
        RedoLog log = logWhosePoolClosed();
        try {
            assertThat(log.append(record(2))).failsWithin(Duration.ofSeconds(30));
            assertThat(log.hasFailed()).isTrue();

            assertThat(log.persistEpochAsync(4)).isCompleted();
            assertThat(log.epoch()).isEqualTo(4);
        } finally {
            log.close();
        }
        try (RedoLog reopened = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(reopened.epoch()).isEqualTo(4);
        }
    }

    /** A log holding record 1 on a one-thread pool that is closed now: its next change fails the writer. */
    private RedoLog logWhosePoolClosed() {
        LogWriterPool pool = new LogWriterPool("test-log-writer", 1);
        RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY);
        log.append(record(1)).join();
        pool.close();
        return log;
    }

    @Test
    void theMetaFileIsWrittenSoonAfterACommitWhileTheLogStaysOpen() {
        try (LogWriterPool pool = new LogWriterPool("test-log-writer", 1);
                RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY)) {
            for (long lsn = 1; lsn <= 5; lsn++) {
                log.append(record(lsn)).join();
                log.markCommitted(lsn);   // the first is written at once, the later ones within the flush interval
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> persistedCommittedLsn(dir) == 5);
        }
    }

    @Test
    void idleThreadsEndAndComeBackAndAPendingMetaFlushKeepsOne() throws Exception {
        try (LogWriterPool pool = new LogWriterPool("test-log-writer-idle", 2, Duration.ofMillis(10));
                RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY)) {
            log.append(record(1)).join();
            log.markCommitted(1);   // written at once
            log.append(record(2)).join();
            log.markCommitted(2);   // due 50 ms after the first: a timer that outlives the threads' idle time
            await().atMost(Duration.ofSeconds(30)).until(() -> persistedCommittedLsn(dir) == 2);
            await().atMost(Duration.ofSeconds(30)).until(() -> threadsNamed("test-log-writer-idle-").isEmpty());

            log.append(record(3)).get(30, TimeUnit.SECONDS);   // a thread started again to write it (and may have ended)
            assertThat(log.read(1, 10)).hasSize(3);
        }
    }

    @Test
    void closingThePoolEndsItsThreads() {
        LogWriterPool pool = new LogWriterPool("test-log-writer-end", 2);
        try (RedoLog a = RedoLog.open(dir.resolve("a"), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY);
                RedoLog b = RedoLog.open(dir.resolve("b"), FsyncPolicy.GROUP, pool, RedoLog.REQUEST_ID_CAPACITY)) {
            CompletableFuture.allOf(a.append(record(1)), b.append(record(1))).join();
        }
        Set<Thread> threads = threadsNamed("test-log-writer-end-");
        assertThat(threads).isNotEmpty().allSatisfy(t -> assertThat(t.isDaemon()).isTrue());
        pool.close();
        pool.close();
        assertThat(threads).allSatisfy(t -> assertThat(t.isAlive()).isFalse());
    }

    private static Set<Thread> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix))
                .collect(Collectors.toSet());
    }

    private static long persistedCommittedLsn(Path directory) {
        try {
            return LogMeta.load(directory).committedLsn();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
