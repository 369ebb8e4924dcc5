package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/** Section 4.5.4's altered workload: fixed intervals at each class's demand, counted per bucket. */
class PacedArrivalsTest {
    @Test
    void eachClassSendsAtItsDemandAndFollowsASpike() {
        CallOptions a = QosWorkload.SEARCH.options(0, BalancingPolicy.RANDOM_POLLING);
        CallOptions b = QosWorkload.SEARCH.options(1, BalancingPolicy.RANDOM_POLLING);
        List<DoubleUnaryOperator> demands = List.of(t -> 0.1, t -> t >= 1 && t < 2 ? 0.8 : 0.3);
        // 1000 requests per second make 100%: class 0 every 10 ms, class 1 every 3.3 ms then 1.25 ms
        PacedArrivals source = new PacedArrivals(demands, List.of(a, b), 1000, 25_000, 0.5, 3);
        Random random = new Random(1);
        double t = 0;
        while (t < 3.2) {
            OpenLoopRun.Request r = source.next(random);
            assertThat(r.intervalNanos()).isGreaterThanOrEqualTo(0);
            assertThat(r.micros()).isEqualTo(25_000);
            assertThat(r.options()).isSameAs(r.kind() == 0 ? a : b);
            t += r.intervalNanos() / 1e9;
        }
        assertThat(source.buckets()).isEqualTo(6);
        for (int bucket = 0; bucket < 6; bucket++) {
            assertThat(source.demand(0, bucket)).isCloseTo(0.1, within(0.005));
            double silver = bucket == 2 || bucket == 3 ? 0.8 : 0.3;
            assertThat(source.demand(1, bucket)).as("bucket %d", bucket).isCloseTo(silver, within(0.01));
        }
    }

    @Test
    void aClassWithNoDemandSendsNothingUntilItHasSome() {
        CallOptions a = QosWorkload.SEARCH.options(0, BalancingPolicy.RANDOM_POLLING);
        PacedArrivals source = new PacedArrivals(List.of(t -> t < 1 ? 0 : 0.5), List.of(a), 100, 1000, 1, 2);
        OpenLoopRun.Request first = source.next(new Random(1));
        assertThat(first.intervalNanos() / 1e9).isCloseTo(1.02, within(0.011)); // 1 s idle, then every 20 ms
        assertThat(source.demand(0, 0)).isZero();
    }
}
