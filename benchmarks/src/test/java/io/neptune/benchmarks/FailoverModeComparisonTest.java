package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.FailoverModeComparison.Case;
import io.neptune.benchmarks.FailoverModeComparison.Measurement;
import io.neptune.benchmarks.FailoverModeComparison.Plan;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mode comparison's run order (what makes it fair) and the ratios its report states. */
class FailoverModeComparisonTest {
    @TempDir
    Path root;

    @Test
    void runsBothModesOfEachConfigurationBackToBackInAbbaOrder() {
        List<Case> cases = FailoverModeComparison.cases();

        assertThat(cases).hasSize(8);
        assertThat(cases.stream().map(Case::mode).toList()).containsExactly(
                FailoverMode.FAIL_STOP, FailoverMode.MAJORITY, FailoverMode.MAJORITY, FailoverMode.FAIL_STOP,
                FailoverMode.FAIL_STOP, FailoverMode.MAJORITY, FailoverMode.MAJORITY, FailoverMode.FAIL_STOP);
        for (int i = 0; i < cases.size(); i += 2) {
            assertThat(cases.get(i + 1)).isEqualTo(cases.get(i).other());
        }
        assertThat(cases.stream().map(Case::level).distinct())
                .containsExactly(ConsistencyLevel.LEVEL_2, ConsistencyLevel.LEVEL_3);
    }

    @Test
    void quickOptionsKeepEveryCaseAndAFilterSaysItDroppedSome() {
        Plan quick = FailoverModeComparison.options(List.of(FailoverModeComparison.OPTION, "--quick"));
        Plan filtered = FailoverModeComparison.options(List.of("--quick", FailoverModeComparison.OPTION,
                "--variants", "L3, 50%"));

        assertThat(quick.quick()).isTrue();
        assertThat(quick.step()).isEqualTo(Duration.ofSeconds(4));
        assertThat(quick.cases()).hasSize(8);
        assertThat(quick.filtered()).isFalse();
        assertThat(filtered.cases()).extracting(Case::mode)
                .containsExactly(FailoverMode.MAJORITY, FailoverMode.FAIL_STOP);
        assertThat(filtered.filtered()).isTrue();
    }

    @Test
    void reportStatesMajorityAgainstFailStopOfTheSameConfiguration() throws Exception {
        Plan plan = FailoverModeComparison.options(List.of("--quick", "--variants", "L2, 10%"));
        Map<Case, Measurement> results = new HashMap<>();
        Case failStop = new Case(ConsistencyLevel.LEVEL_2, 0.1, FailoverMode.FAIL_STOP);
        results.put(failStop, measurement(failStop, 800, 20.0, 12.0));
        results.put(failStop.other(), measurement(failStop.other(), 600, 15.0, 30.0));

        FailoverModeComparison.report(plan, results, "Run time 1 min.").write(root, "./neptune bench test");

        List<String> csv = Files.readAllLines(root.resolve("docs/benchmarks/failover-modes.csv"));
        assertThat(csv).hasSize(3);
        assertThat(csv.get(1)).startsWith("L2,10,fail-stop,800,1.00,").contains(",20,80,1.00,");
        assertThat(csv.get(2)).startsWith("L2,10,majority,600,0.75,").contains(",15,60,0.75,");
        assertThat(root.resolve("docs/benchmarks/failover-modes.png")).exists();
    }

    private static Measurement measurement(Case c, double rate, double writeP50, double idleCpu) {
        OpenLoopProbe.Result step = new OpenLoopProbe.Result(rate, 1000, 1000, 1000, false, 30, 90, writeP50,
                4 * writeP50, Map.of(), 1.0 / 3);
        SaturationSearch.Outcome outcome = new SaturationSearch.Outcome(rate, step, 2 * rate, 5, 40);
        return new Measurement(c, 532, idleCpu, step, outcome, 0, "1.0");
    }
}
