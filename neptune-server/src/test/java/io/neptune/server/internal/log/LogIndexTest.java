package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.requestId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LogIndexTest {
    private static final int START = 8;
    private static final int FRAME = 100;

    @Test
    void offsetsEpochsAndEnd() {
        LogIndex index = indexOf(10, 3);
        assertThat(index.lastLsn()).isEqualTo(10);
        assertThat(index.offsetOf(1)).isEqualTo(START);
        assertThat(index.offsetOf(10)).isEqualTo(START + 9 * FRAME);
        assertThat(index.offsetOf(11)).isEqualTo(index.end()).isEqualTo(START + 10 * FRAME);
        assertThat(index.epochOf(1)).isEqualTo(1);   // epoch = 1 + (lsn - 1) / 4: runs 1..4, 5..8, 9..10
        assertThat(index.epochOf(4)).isEqualTo(1);
        assertThat(index.epochOf(5)).isEqualTo(2);
        assertThat(index.epochOf(10)).isEqualTo(3);
        assertThat(index.lastEpoch()).isEqualTo(3);
        assertThatThrownBy(() -> index.offsetOf(12)).hasMessage("lsn: 12 (expected: 1..11)");
    }

    @Test
    void remembersOnlyTheMostRecentRequestIds() {
        LogIndex index = indexOf(10, 3);
        assertThat(index.lsnOf(requestId(7))).isEmpty();
        assertThat(index.lsnOf(requestId(8))).hasValue(8);
        assertThat(index.lsnOf(requestId(10))).hasValue(10);
    }

    @Test
    void truncateAfterForgetsTheSuffix() {
        LogIndex index = indexOf(10, 100);
        index.truncateAfter(6);
        assertThat(index.lastLsn()).isEqualTo(6);
        assertThat(index.end()).isEqualTo(START + 6 * FRAME);
        assertThat(index.lastEpoch()).isEqualTo(2);
        assertThat(index.lsnOf(requestId(7))).isEmpty();
        assertThat(index.lsnOf(requestId(6))).hasValue(6);
        index.add(7, 9, requestId(70), index.end(), FRAME);
        assertThat(index.lastEpoch()).isEqualTo(9);
        assertThat(index.epochOf(6)).isEqualTo(2);
        index.truncateAfter(0);
        assertThat(index.lastLsn()).isZero();
        assertThat(index.lastEpoch()).isZero();
        assertThat(index.end()).isEqualTo(START);
    }

    @Test
    void lastWithinBoundsTheBytesOfARead() {
        LogIndex index = indexOf(10, 3);
        assertThat(index.lastWithin(1, 10, 3 * FRAME)).isEqualTo(3);
        assertThat(index.lastWithin(2, 10, 3 * FRAME + 99)).isEqualTo(4);
        assertThat(index.lastWithin(5, 10, 1)).isEqualTo(5);   // always at least one record
        assertThat(index.lastWithin(5, 7, 1 << 20)).isEqualTo(7);
    }

    @Test
    void growsPastItsInitialCapacity() {
        LogIndex index = indexOf(5000, 10);
        assertThat(index.offsetOf(4321)).isEqualTo(START + 4320L * FRAME);
    }

    @Test
    void rejectsAnOutOfSequenceRecord() {
        LogIndex index = indexOf(2, 3);
        assertThatThrownBy(() -> index.add(4, 1, requestId(4), index.end(), FRAME))
                .isInstanceOf(IllegalStateException.class);
    }

    private static LogIndex indexOf(int records, int requestIds) {
        LogIndex index = new LogIndex(START, requestIds);
        for (long lsn = 1; lsn <= records; lsn++) {
            index.add(lsn, 1 + (lsn - 1) / 4, requestId(lsn), index.end(), FRAME);
        }
        return index;
    }
}
