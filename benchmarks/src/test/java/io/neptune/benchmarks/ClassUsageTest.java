package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.ClassStats;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Figure 4.12's allocation: per-interval worker time per class, through a server failing and restarting. */
class ClassUsageTest {
    @Test
    void usesTheDifferencePerServerAndCountsARestartedServerFromZero() {
        ClassUsage usage = new ClassUsage(List.of("gold", "bronze"));
        usage.sample(List.of(List.of(used("gold", 1), used("bronze", 2)), List.of(used("gold", 5))));
        double[] first = usage.sample(List.of(List.of(used("gold", 1.5), used("bronze", 3)),
                List.of(used("gold", 6))));
        assertThat(first).containsExactly(1.5, 1.0);
        double[] down = usage.sample(List.of(List.of(used("gold", 2), used("bronze", 3)), List.of()));
        assertThat(down).as("a server that is down used nothing; no negative use").containsExactly(0.5, 0.0);
        double[] back = usage.sample(List.of(List.of(used("gold", 2), used("bronze", 3)),
                List.of(used("gold", 0.25))));
        assertThat(back).as("restarted: its new counters count in full").containsExactly(0.25, 0.0);
    }

    @Test
    void meanOfTheBucketsEndingInAWindow() {
        double[] series = {1, 2, 3, 4};
        assertThat(QosClusterReports.mean(series, 0.5, 0.5, 1.5)).isEqualTo(2.5); // buckets ending at 1.0 and 1.5
        assertThat(QosClusterReports.mean(series, 0.5, 5, 6)).isNaN();
    }

    private static ClassStats used(String serviceClass, double seconds) {
        return new ClassStats(serviceClass, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, seconds);
    }
}
