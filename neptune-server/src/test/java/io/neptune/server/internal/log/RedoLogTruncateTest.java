package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.record;
import static io.neptune.server.internal.log.TestRecords.requestId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dropping a log's prefix ({@link RedoLog#truncateBefore}) and restarting it after a snapshot ({@link RedoLog#restartAfter}). */
class RedoLogTruncateTest {
    @TempDir
    Path dir;

    @Test
    void truncateBeforeDropsThePrefixFromDiskAndKeepsTheBoundaryAcrossRestart() throws IOException {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendRange(log, 1, 200, 2);
            appendRange(log, 201, 300, 3);
            log.markCommitted(250);
            long before = Files.size(dir.resolve(LogFile.NAME));
            log.truncateBefore(221);

            assertThat(Files.size(dir.resolve(LogFile.NAME))).isLessThan(before / 2);
            assertThat(log.startLsn()).isEqualTo(221);
            assertThat(log.boundary()).isEqualTo(new LogBoundary(220, 3, record(220, 3, 512).origin()));
            assertThat(log.epochOf(220)).isEqualTo(3);
            assertThat(log.originOf(220)).isEqualTo(record(220, 3, 512).origin());
            assertThat(log.read(221, 1000)).containsExactlyElementsOf(expected(221, 300));
            assertThat(log.lsnOf(requestId(100))).as("a dropped write's id").hasValue(100);
            assertThat(log.lsnOf(requestId(230))).hasValue(230);
            // appends continue, and a suffix truncation still works in the new file's offsets
            appendRange(log, 301, 320, 3);
            log.truncateAfter(310);
            appendRange(log, 311, 315, 3);
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.lsnOf(requestId(100))).as("a dropped write's id after a restart").hasValue(100);
            assertThat(log.lsnOf(requestId(1))).hasValue(1);
            assertThat(log.startLsn()).isEqualTo(221);
            assertThat(log.lastLsn()).isEqualTo(315);
            assertThat(log.lastEpoch()).isEqualTo(3);
            assertThat(log.epochOf(220)).isEqualTo(3);
            assertThat(log.committedLsn()).isEqualTo(250);
            assertThat(log.read(221, 1000)).containsExactlyElementsOf(expected(221, 315));
            log.markCommitted(315);
            log.truncateBefore(301);
            assertThat(log.read(301, 1000)).containsExactlyElementsOf(expected(301, 315));
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.startLsn()).isEqualTo(301);
            assertThat(log.read(301, 1000)).containsExactlyElementsOf(expected(301, 315));
            assertThat(log.lsnOf(requestId(100))).as("an id dropped by the first cut, after the second").hasValue(100);
            assertThat(log.lsnOf(requestId(311))).hasValue(311);
            assertThat(log.lsnOf(requestId(316))).isEmpty();
        }
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("request-ids")))
                    .as("request-id files: only the one of the log's boundary").containsExactly("request-ids-300");
        }
    }

    @Test
    void theRequestIdsOfDroppedWritesStayWithinTheWindowOfTheMostRecentOnes() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.NONE)) {
            int capacity = RedoLog.REQUEST_ID_CAPACITY;
            appendRange(log, 1, capacity + 10, 1, 8);
            log.markCommitted(capacity);
            log.truncateBefore(capacity + 1);
            assertThat(log.lsnOf(requestId(10))).as("an id older than the most recent " + capacity).isEmpty();
            assertThat(log.lsnOf(requestId(11))).hasValue(11);
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.NONE)) {
            assertThat(log.lsnOf(requestId(10))).isEmpty();
            assertThat(log.lsnOf(requestId(11))).hasValue(11);
            assertThat(log.lsnOf(requestId(RedoLog.REQUEST_ID_CAPACITY + 10))).hasValue(RedoLog.REQUEST_ID_CAPACITY + 10);
        }
    }

    @Test
    void recordsStayWhenTheirRequestIdsCannotBeKept() throws IOException {
        Files.createDirectories(dir.resolve("request-ids-50.tmp"));   // where the file is written first
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendRange(log, 1, 100, 1);
            log.markCommitted(100);
            log.truncateBefore(51);
            assertThat(log.startLsn()).as("the start after a cut whose ids could not be kept").isEqualTo(1);
            Files.delete(dir.resolve("request-ids-50.tmp"));
            log.truncateBefore(51);
            assertThat(log.startLsn()).isEqualTo(51);
            assertThat(log.lsnOf(requestId(20))).hasValue(20);
        }
    }

    @Test
    void aCrashBeforeTheCutLeavesTheLogWithTheRequestIdsOfItsOwnBoundary() throws IOException {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendRange(log, 1, 100, 1);
            log.markCommitted(100);
            log.truncateBefore(51);
        }
        // what a crash between writing the file of a cut (here, of a snapshot's install) and cutting the log leaves
        EarlierRequests.write(dir, new LogBoundary(80, 1, "node-9"), List.of(new KnownRequest(requestId(5000), 80)));
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.lsnOf(requestId(20))).hasValue(20);
            assertThat(log.lsnOf(requestId(70))).hasValue(70);
            assertThat(log.lsnOf(requestId(5000))).as("an id of a cut that did not happen").isEmpty();
        }
        // and a damaged file narrows the window, it does not stop the log
        byte[] bytes = Files.readAllBytes(dir.resolve("request-ids-50"));
        bytes[bytes.length / 2] ^= 1;
        Files.write(dir.resolve("request-ids-50"), bytes);
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.lsnOf(requestId(20))).isEmpty();
            assertThat(log.lsnOf(requestId(70))).hasValue(70);
            log.markCommitted(100);
            log.truncateBefore(91);
        }
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("request-ids")))
                    .containsExactly("request-ids-90");
        }
    }

    @Test
    void readsBelowTheStartFailWithTheStartInsteadOfReturningLess() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendRange(log, 1, 50, 1);
            log.markCommitted(50);
            log.truncateBefore(41);

            assertThatThrownBy(() -> log.read(40, 10)).isInstanceOf(LogTruncatedException.class)
                    .hasMessageContaining("truncated below 41")
                    .satisfies(e -> assertThat(((LogTruncatedException) e).startLsn()).isEqualTo(41));
            assertThatThrownBy(() -> log.record(1)).isInstanceOf(LogTruncatedException.class);
            assertThatThrownBy(() -> log.epochOf(39)).isInstanceOf(LogTruncatedException.class);
            assertThatThrownBy(() -> log.truncateAfter(30)).isInstanceOf(IllegalArgumentException.class);
            assertThat(log.epochOf(40)).isEqualTo(1);
            // everything may go: the log is then empty but keeps its last LSN and epoch
            log.truncateBefore(51);
            assertThat(log.startLsn()).isEqualTo(51);
            assertThat(log.lastLsn()).isEqualTo(50);
            assertThat(log.lastEpoch()).isEqualTo(1);
            assertThat(log.read(51, 10)).isEmpty();
            assertThatThrownBy(() -> log.read(50, 10)).isInstanceOf(LogTruncatedException.class);
            log.append(record(51, 1, 512)).join();
            assertThat(log.read(51, 10)).containsExactly(record(51, 1, 512));
        }
    }

    @Test
    void onlyCommittedRecordsCanBeDropped() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendRange(log, 1, 30, 1);
            log.markCommitted(10);
            assertThatThrownBy(() -> log.truncateBefore(12)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lsn: 12 (expected: <= 11");
            log.truncateBefore(11);
            log.truncateBefore(5);   // below the start: nothing to do
            assertThat(log.startLsn()).isEqualTo(11);
        }
    }

    @Test
    void restartAfterDropsEveryRecordAndContinuesAfterTheSnapshot() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendRange(log, 1, 20, 1);
            log.restartAfter(new LogBoundary(1000, 4, "node-1"), List.of(new KnownRequest(requestId(990), 990),
                    new KnownRequest(requestId(995), 995), new KnownRequest(requestId(2000), 2000)));
            assertThat(log.lsnOf(requestId(5))).as("an id of the log before the snapshot").isEmpty();
            assertThat(log.lsnOf(requestId(990))).as("an id of a write in the snapshot").hasValue(990);
            assertThat(log.lsnOf(requestId(2000))).as("an id above the boundary: lowered to it").hasValue(1000);
            assertThat(log.startLsn()).isEqualTo(1001);
            assertThat(log.lastLsn()).isEqualTo(1000);
            assertThat(log.lastEpoch()).isEqualTo(4);
            assertThat(log.committedLsn()).isEqualTo(1000);
            assertThatThrownBy(() -> log.append(record(21, 4, 512))).isInstanceOf(IllegalArgumentException.class);
            appendRange(log, 1001, 1010, 4);
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.boundary()).isEqualTo(new LogBoundary(1000, 4, "node-1"));
            assertThat(log.originOf(1000)).isEqualTo("node-1");
            assertThat(log.read(1001, 100)).containsExactlyElementsOf(expected(1001, 1010, 4));
            assertThat(log.lsnOf(requestId(995))).as("after a restart").hasValue(995);
            assertThat(log.lsnOf(requestId(1005))).hasValue(1005);
            assertThat(log.requestsUpTo(1000)).extracting(KnownRequest::lsn).containsExactly(990L, 995L, 1000L);
        }
    }

    @Test
    void readersAndAppendsRunOnWhileThePrefixIsDropped() throws Exception {
        ExecutorService readers = Executors.newFixedThreadPool(2);
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.NONE)) {
            appendRange(log, 1, 2000, 1);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            List<Future<?>> running = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                running.add(readers.submit(() -> {
                    while (!stop.get()) {
                        long from = log.startLsn();
                        try {
                            List<LogRecord> got = log.read(from, 50);
                            for (int i = 0; i < got.size(); i++) {
                                assertThat(got.get(i)).isEqualTo(record(from + i, 1, 512));
                            }
                            reads.incrementAndGet();
                        } catch (LogTruncatedException e) {
                            assertThat(e.startLsn()).isGreaterThan(from);
                        }
                    }
                    return null;
                }));
            }
            List<CompletableFuture<Void>> appended = new ArrayList<>();
            for (long lsn = 2001; lsn <= 4000; lsn++) {
                appended.add(log.append(record(lsn, 1, 512)));
                if (lsn % 200 == 0) {
                    log.markCommitted(lsn - 100);
                    log.truncateBefore(lsn - 150);
                }
            }
            CompletableFuture.allOf(appended.toArray(CompletableFuture[]::new)).join();
            stop.set(true);
            for (Future<?> f : running) {
                f.get(30, TimeUnit.SECONDS);
            }
            assertThat(reads.get()).isPositive();
            assertThat(log.startLsn()).isEqualTo(3850);
            assertThat(log.read(3850, 1000)).containsExactlyElementsOf(expected(3850, 4000, 1));
        } finally {
            readers.shutdownNow();
        }
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            assertThat(log.startLsn()).isEqualTo(3850);
            assertThat(log.lastLsn()).isEqualTo(4000);
        }
    }

    @Test
    void aCorruptVersionTwoHeaderIsRefused() throws IOException {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            appendRange(log, 1, 10, 1);
            log.markCommitted(10);
            log.truncateBefore(6);
        }
        Path file = dir.resolve(LogFile.NAME);
        byte[] bytes = Files.readAllBytes(file);
        bytes[12] ^= 1;   // inside the boundary LSN
        Files.write(file, bytes);
        assertThatThrownBy(() -> RedoLog.open(dir, FsyncPolicy.GROUP)).isInstanceOf(LogException.class)
                .hasMessageContaining("version 2 header");
    }

    private static void appendRange(RedoLog log, long from, long to, long epoch) {
        appendRange(log, from, to, epoch, 512);
    }

    private static void appendRange(RedoLog log, long from, long to, long epoch, int maxPayload) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (long lsn = from; lsn <= to; lsn++) {
            done.add(log.append(record(lsn, epoch, maxPayload)));
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
    }

    private static List<LogRecord> expected(long from, long to) {
        List<LogRecord> records = new ArrayList<>();
        for (long lsn = from; lsn <= to; lsn++) {
            records.add(record(lsn, lsn <= 200 ? 2 : 3, 512));
        }
        return records;
    }

    private static List<LogRecord> expected(long from, long to, long epoch) {
        List<LogRecord> records = new ArrayList<>();
        for (long lsn = from; lsn <= to; lsn++) {
            records.add(record(lsn, epoch, 512));
        }
        return records;
    }
}
