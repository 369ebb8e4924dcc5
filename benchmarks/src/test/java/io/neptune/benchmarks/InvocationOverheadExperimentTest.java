package io.neptune.benchmarks;

import static io.neptune.benchmarks.InvocationOverheadExperiment.FIXED;
import static io.neptune.benchmarks.InvocationOverheadExperiment.RAW_MULTI;
import static io.neptune.benchmarks.InvocationOverheadExperiment.RAW_SINGLE;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.InvocationOverheadExperiment.Measurement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The overhead bench's raw floor: the better of one connection and several, per caller count; nothing timed. */
class InvocationOverheadExperimentTest {
    private static final List<Measurement> RUN = List.of(
            measured(RAW_SINGLE, 1, 20_000, 40.0),
            measured(RAW_MULTI, 1, 19_000, 42.0),
            measured(FIXED, 1, 5_000, 150.0),
            measured(RAW_SINGLE, 64, 100_000, 600.0),
            measured(RAW_MULTI, 64, 160_000, 400.0),
            measured(FIXED, 64, 80_000, 800.0));

    @Test
    void theFloorIsTheBetterRawRunAtEachCallerCount() {
        assertThat(InvocationOverheadExperiment.floorLabel(RUN, 1, true)).isEqualTo(RAW_SINGLE);
        assertThat(InvocationOverheadExperiment.floorLabel(RUN, 1, false)).isEqualTo(RAW_SINGLE);
        assertThat(InvocationOverheadExperiment.floorLabel(RUN, 64, false)).isEqualTo(RAW_MULTI);
        assertThat(InvocationOverheadExperiment.floor(RUN, 64, false).throughput()).isEqualTo(160_000);
    }

    @Test
    void theFloorTableNamesTheWinnerAndTheFixedNodesRatioToIt() {
        assertThat(InvocationOverheadExperiment.floorTable(RUN, List.of(1, 64)))
                .contains("| 1 | 20000 | 19000 | 40.0 | 42.0 | 1 connection | 0.25 | 1 connection | 3.75 |")
                .contains("| 64 | 100000 | 160000 | 600.0 | 400.0 | 2 connections | 0.50 | 2 connections | 2.00 |");
    }

    private static Measurement measured(String system, int callers, double throughput, double p50) {
        return new Measurement(system, new ClosedLoop.Result(callers, 1000, 0, throughput, p50, p50 * 2, p50, ""),
                "1.00");
    }
}
