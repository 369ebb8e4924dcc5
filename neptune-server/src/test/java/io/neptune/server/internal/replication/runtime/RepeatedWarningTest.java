package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RepeatedWarningTest {
    @Test
    void logsOnceAMinuteAndCountsWhatItLeftOut() {
        RepeatedWarning warning = new RepeatedWarning();
        long t = 1_000;
        assertThat(warning.due(t)).isZero();
        for (int i = 1; i <= 599; i++) { // ten a second for a minute
            assertThat(warning.due(t + i * 100_000_000L)).isEqualTo(-1);
        }
        assertThat(warning.due(t + RepeatedWarning.INTERVAL_NANOS)).isEqualTo(599);
        assertThat(warning.due(t + RepeatedWarning.INTERVAL_NANOS + 1)).isEqualTo(-1);
    }
}
