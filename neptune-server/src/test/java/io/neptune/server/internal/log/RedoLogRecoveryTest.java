package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery on open: torn and corrupt tails are cut off, never replayed; bad meta files are refused. */
class RedoLogRecoveryTest {
    private static final int RECORDS = 5;

    @TempDir
    Path dir;

    private byte[] full;
    private long[] starts;   // starts[i]: offset of record i + 1; starts[RECORDS]: end of the file

    @BeforeEach
    void writeLog() throws IOException {
        Path original = dir.resolve("original");
        starts = new long[RECORDS + 1];
        try (RedoLog log = RedoLog.open(original, FsyncPolicy.GROUP)) {
            for (int lsn = 1; lsn <= RECORDS; lsn++) {
                starts[lsn - 1] = Files.size(original.resolve(LogFile.NAME));
                log.append(record(lsn, 1, 100)).join();
            }
        }
        full = Files.readAllBytes(original.resolve(LogFile.NAME));
        starts[RECORDS] = full.length;
    }

    @Test
    void tornLastRecordIsDroppedAtEveryCutPoint() throws IOException {
        for (long cut = starts[RECORDS - 1]; cut < starts[RECORDS]; cut++) {
            Path copy = copyOf(Arrays.copyOf(full, (int) cut), "cut-" + cut);
            for (int round = 0; round < 2; round++) {
                try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
                    assertThat(log.lastLsn()).as("cut at %d, round %d", cut, round).isEqualTo(RECORDS - 1);
                    assertIntact(log, RECORDS - 1);
                }
                assertThat(Files.size(copy.resolve(LogFile.NAME))).isEqualTo(starts[RECORDS - 1]);
            }
            try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
                log.append(record(RECORDS, 1, 100)).join();   // the log goes on where it was cut
            }
            assertThat(Files.readAllBytes(copy.resolve(LogFile.NAME))).isEqualTo(full);
        }
    }

    @Test
    void flippedBitInTheMiddleRecordTruncatesFromThere() throws IOException {
        int middle = RECORDS / 2 + 1;
        long bodyStart = starts[middle - 1] + RecordCodec.FRAME_HEADER_BYTES;
        for (long offset : List.of(bodyStart, bodyStart + 20, starts[middle] - 1)) {
            byte[] corrupt = full.clone();
            corrupt[(int) offset] ^= 0x10;
            Path copy = copyOf(corrupt, "flip-" + offset);
            try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
                assertThat(log.lastLsn()).isEqualTo(middle - 1);
                assertIntact(log, middle - 1);
            }
            assertThat(Files.size(copy.resolve(LogFile.NAME))).isEqualTo(starts[middle - 1]);
        }
    }

    @Test
    void corruptLengthFieldsAreCutOff() throws IOException {
        int last = RECORDS;
        for (int length : List.of(0, -1, RecordCodec.MIN_BODY_BYTES - 1, RecordCodec.MAX_BODY_BYTES + 1, 1 << 30)) {
            byte[] corrupt = full.clone();
            java.nio.ByteBuffer.wrap(corrupt).putInt((int) starts[last - 1], length);
            try (RedoLog log = RedoLog.open(copyOf(corrupt, "length-" + length), FsyncPolicy.GROUP)) {
                assertThat(log.lastLsn()).isEqualTo(last - 1);
            }
        }
    }

    @Test
    void zeroFilledTailIsCutOff() throws IOException {
        byte[] padded = Arrays.copyOf(full, full.length + 4096);
        Path copy = copyOf(padded, "zeros");
        try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).isEqualTo(RECORDS);
            assertIntact(log, RECORDS);
        }
        assertThat(Files.size(copy.resolve(LogFile.NAME))).isEqualTo(full.length);
    }

    @Test
    void committedLsnPastTheRecoveredEndIsLowered() throws IOException {
        Path copy = dir.resolve("committed");
        try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
            LongStream.rangeClosed(1, RECORDS).forEach(lsn -> log.append(record(lsn, 1, 100)).join());
            log.markCommitted(RECORDS);
        }
        Files.write(copy.resolve(LogFile.NAME), Arrays.copyOf(full, (int) starts[2]));
        try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).isEqualTo(2);
            assertThat(log.committedLsn()).isEqualTo(2);
        }
    }

    @Test
    void corruptMetaFileIsRefused() throws IOException {
        Path copy = copyOf(full, "meta");
        try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
            log.persistEpoch(9);
        }
        byte[] meta = Files.readAllBytes(copy.resolve(LogMeta.NAME));
        meta[10] ^= 1;
        Files.write(copy.resolve(LogMeta.NAME), meta);
        assertThatThrownBy(() -> RedoLog.open(copy, FsyncPolicy.GROUP)).isInstanceOf(LogException.class)
                .hasMessageContaining("refusing to guess the persisted epoch")
                .satisfies(e -> assertThat(((LogException) e).directory()).isEqualTo(copy));
    }

    @Test
    void foreignFileIsRefused() throws IOException {
        byte[] foreign = full.clone();
        foreign[0] = 'X';
        assertThatThrownBy(() -> RedoLog.open(copyOf(foreign, "foreign"), FsyncPolicy.GROUP))
                .isInstanceOf(LogException.class).hasMessageContaining("expected: a Neptune REDO log");
    }

    @Test
    void leftoverTemporaryFilesAreIgnored() throws IOException {
        Path copy = copyOf(full, "leftovers");
        Files.write(copy.resolve(LogMeta.NAME + ".tmp"), new byte[] {1, 2, 3});
        try (RedoLog log = RedoLog.open(copy, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).isEqualTo(RECORDS);
            assertThat(log.epoch()).isZero();
        }
        assertThat(copy.resolve(LogMeta.NAME + ".tmp")).doesNotExist();
    }

    private Path copyOf(byte[] logBytes, String name) throws IOException {
        Path copy = Files.createDirectories(dir.resolve(name));
        Files.write(copy.resolve(LogFile.NAME), logBytes);
        return copy;
    }

    private static void assertIntact(RedoLog log, int records) {
        assertThat(log.read(1, RECORDS + 1)).hasSize(records)
                .allSatisfy(r -> assertThat(r).isEqualTo(record(r.lsn(), 1, 100)));
    }
}
