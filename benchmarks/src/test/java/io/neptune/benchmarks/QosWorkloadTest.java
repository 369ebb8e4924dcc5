package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.neptune.client.BalancingPolicy;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The generated requests match what the dissertation states of its workloads (Table 4.2, section 4.5.1), scaled. */
class QosWorkloadTest {
    private static final int CALLS = 300_000;

    @Test
    void differentiatedSearchMatchesTable42PerClassScaledToItsShareOfTheRate() {
        double rate = 100;
        Stats[] stats = draw(QosWorkload.SEARCH, rate, new Random(42));
        double[] shares = {0.1, 0.3, 0.6};
        double[][] table = { // mean and sd of intervals (ms, at the trace's own rate), then of service times
            {161.3, 164.3, 247.9, 218.2}, {166.0, 169.5, 249.7, 219.3}, {161.3, 164.7, 245.1, 215.7}};
        for (int k = 0; k < 3; k++) {
            Stats s = stats[k];
            assertThat(s.calls / (double) CALLS).as("share of class %d", k).isCloseTo(shares[k], within(0.005));
            double meanInterval = 1000 / (rate * shares[k]);
            assertThat(s.interval.mean()).as("interval mean of class %d", k)
                    .isCloseTo(meanInterval, within(0.02 * meanInterval));
            assertThat(s.interval.sd() / s.interval.mean()).as("interval CV of class %d", k)
                    .isCloseTo(table[k][1] / table[k][0], within(0.03));
            assertThat(s.service.mean()).as("service mean of class %d", k)
                    .isCloseTo(table[k][2] / QosWorkload.SCALE, within(0.02 * table[k][2] / QosWorkload.SCALE));
            assertThat(s.service.sd()).as("service sd of class %d", k)
                    .isCloseTo(table[k][3] / QosWorkload.SCALE, within(0.03 * table[k][3] / QosWorkload.SCALE));
        }
    }

    @Test
    void microBenchmarkIsPoissonWithExponentialServiceTimesAndEqualRates() {
        Stats[] stats = draw(QosWorkload.MICRO, 60, new Random(7));
        double[] means = {40, 20, 10};
        for (int k = 0; k < 3; k++) {
            assertThat(stats[k].calls / (double) CALLS).isCloseTo(1.0 / 3, within(0.005));
            assertThat(stats[k].interval.mean()).isCloseTo(1000 / 20.0, within(1.0));
            assertThat(stats[k].interval.sd() / stats[k].interval.mean()).isCloseTo(1, within(0.03));
            assertThat(stats[k].service.mean()).isCloseTo(means[k], within(0.02 * means[k]));
            assertThat(stats[k].service.sd()).isCloseTo(means[k], within(0.03 * means[k]));
        }
        assertThat(QosWorkload.MICRO.capacity(2)).isCloseTo(2000 / (70 / 3.0), within(1e-9));
    }

    @Test
    void theSameSeedGivesTheSameSequence() {
        OpenLoopRun.Arrivals a = QosWorkload.SEARCH.arrivals(50);
        OpenLoopRun.Arrivals b = QosWorkload.SEARCH.arrivals(50);
        Random ra = new Random(3);
        Random rb = new Random(3);
        for (int i = 0; i < 1000; i++) {
            OpenLoopRun.Request x = a.next(ra);
            OpenLoopRun.Request y = b.next(rb);
            assertThat(x.intervalNanos()).isEqualTo(y.intervalNanos());
            assertThat(x.micros()).isEqualTo(y.micros());
            assertThat(x.kind()).isEqualTo(y.kind());
        }
    }

    @Test
    void callsNameTheirClassAndLeaveTheClassDeadlineToTheNode() {
        assertThat(QosWorkload.MICRO.options(0, BalancingPolicy.RANDOM).serviceClass()).contains("gold");
        assertThat(QosWorkload.SEARCH.options(2, BalancingPolicy.RANDOM).serviceClass()).contains("bronze");
        assertThat(QosWorkload.MICRO.options(1, BalancingPolicy.RANDOM).timeout()).hasValueSatisfying(t ->
                assertThat(t).isGreaterThan(QosWorkload.DEADLINE));
    }

    /** Per class: its intervals (between its own arrivals) and service times, in milliseconds. */
    private static Stats[] draw(QosWorkload workload, double rate, Random random) {
        OpenLoopRun.Arrivals arrivals = workload.arrivals(rate);
        Stats[] stats = {new Stats(), new Stats(), new Stats()};
        long now = 0;
        long[] last = {-1, -1, -1};
        for (int i = 0; i < CALLS; i++) {
            OpenLoopRun.Request r = arrivals.next(random);
            now += r.intervalNanos();
            Stats s = stats[r.kind()];
            s.calls++;
            if (last[r.kind()] >= 0) {
                s.interval.add((now - last[r.kind()]) / 1e6);
            }
            last[r.kind()] = now;
            s.service.add(r.micros() / 1e3);
        }
        return stats;
    }

    private static final class Stats {
        long calls;
        final Moments interval = new Moments();
        final Moments service = new Moments();
    }

    private static final class Moments {
        long n;
        double sum;
        double squares;

        void add(double x) {
            n++;
            sum += x;
            squares += x * x;
        }

        double mean() {
            return sum / n;
        }

        double sd() {
            return Math.sqrt(squares / n - mean() * mean());
        }
    }
}
