package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Figure 3.1's statistic on hand-made series, its closed-form bound, and the exact queue it is held against. */
class LoadIndexInaccuracyTest {
    @Test
    void theInaccuracyIsTheMeanAbsoluteDifferenceOfTheSamplesALagApart() {
        int[] series = {0, 1, 3, 1, 0};

        assertThat(LoadIndexInaccuracy.inaccuracy(series, 0)).isZero();
        assertThat(LoadIndexInaccuracy.inaccuracy(series, 1)).as("(1 + 2 + 2 + 1) / 4").isEqualTo(1.5);
        assertThat(LoadIndexInaccuracy.inaccuracy(series, 2)).as("(3 + 0 + 3) / 3").isEqualTo(2.0);
        assertThat(LoadIndexInaccuracy.inaccuracy(series, 4)).as("one pair, 0 and 0").isZero();
        assertThat(LoadIndexInaccuracy.inaccuracy(series, 5)).as("no pair").isNaN();
        assertThatThrownBy(() -> LoadIndexInaccuracy.inaccuracy(series, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theClosedFormIsTheDissertationsSeriesAndItsTwoPrintedValues() {
        for (double rho : new double[] {0.1, 0.5, 0.7, 0.9}) {
            double sum = 0; // equation 3.2.1's left side: Σ (1 − ρ)² ρ^(i + j) |i − j|
            for (int i = 0; i < 2_000; i++) {
                for (int j = 0; j < 2_000; j++) {
                    sum += (1 - rho) * (1 - rho) * Math.pow(rho, i + j) * Math.abs(i - j);
                }
            }
            assertThat(LoadIndexInaccuracy.poissonExpBound(rho)).as("ρ = %s", rho).isCloseTo(sum, within(1e-9));
        }
        assertThat(LoadIndexInaccuracy.poissonExpBound(0.5)).as("the dissertation's 1.33").isCloseTo(1.33,
                within(0.005));
        assertThat(LoadIndexInaccuracy.poissonExpBound(0.9)).isCloseTo(9.47, within(0.005));
        assertThatThrownBy(() -> LoadIndexInaccuracy.poissonExpBound(1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void independentDrawsAverageTheDifferenceOverEveryPairOfValues() {
        // P(0) = 1/2, P(1) = 1/4, P(3) = 1/4: 2 × (1/8 × 1 + 1/8 × 3 + 1/16 × 2) = 1.25
        assertThat(LoadIndexInaccuracy.independentDraws(new int[] {0, 3, 1, 0})).isEqualTo(1.25);
        assertThat(LoadIndexInaccuracy.independentDraws(new int[] {4, 4, 4})).isZero();
        assertThat(LoadIndexInaccuracy.independentDraws(new int[0])).isNaN();
    }

    @Test
    void independentDrawsOfTheGeometricQueueLengthsAreTheClosedForm() {
        double rho = 0.7;
        int total = 1_000_000;
        int[] series = new int[total];
        int at = 0;
        for (int k = 0; at < total; k++) { // the M/M/1 queue length's distribution (1 − ρ) ρ^k, as counts
            int count = (int) Math.round(total * (1 - rho) * Math.pow(rho, k));
            for (int c = 0; c < Math.max(1, count) && at < total; c++) {
                series[at++] = k;
            }
        }

        assertThat(LoadIndexInaccuracy.independentDraws(series))
                .isCloseTo(LoadIndexInaccuracy.poissonExpBound(rho), within(0.01));
    }

    @Test
    void readingsGoOnTheGridAsAStepFunctionOfTheLatestReading() {
        long[] times = {10, 25, 40, 0};
        int[] values = {1, 2, 3, 9};

        int[] grid = LoadIndexInaccuracy.onGrid(times, values, 3, 0, 10, 6);

        assertThat(grid).as("0 and 10 before the second reading, 40 and 50 at or after the third; the fourth slot is"
                + " not a reading").containsExactly(1, 1, 1, 2, 3, 3);
    }

    @Test
    void theExactQueueOfPoissonExpReachesTheBoundAtModerateLoadAndAboutThreeAtTenServiceTimesAtHighLoad() {
        QueueingModel model = new QueueingModel(1);
        double step = Workload.POISSON_EXP.meanServiceMillis() / 20;
        QueueingModel.Grid grid = new QueueingModel.Grid(10_000 * step, step, 4_000_000);

        int[] moderate = model.queueLengths(Workload.POISSON_EXP, 0.5, 1, grid);
        int[] high = model.queueLengths(Workload.POISSON_EXP, 0.9, 1, grid);

        assertThat(LoadIndexInaccuracy.busyFraction(moderate)).as("utilization").isCloseTo(0.5, within(0.01));
        assertThat(LoadIndexInaccuracy.mean(moderate)).as("ρ / (1 − ρ)").isCloseTo(1.0, within(0.05));
        assertThat(LoadIndexInaccuracy.inaccuracy(moderate, 100 * 20)).as("100 service times")
                .isCloseTo(LoadIndexInaccuracy.poissonExpBound(0.5), within(0.05));
        assertThat(LoadIndexInaccuracy.inaccuracy(moderate, 20)).as("one service time: well below the bound")
                .isLessThan(0.7);
        assertThat(LoadIndexInaccuracy.busyFraction(high)).isCloseTo(0.9, within(0.01));
        assertThat(LoadIndexInaccuracy.inaccuracy(high, 10 * 20)).as("10 service times").isCloseTo(3.0, within(0.3));
    }

    @Test
    void theModelSamplesTheQueueOfTheRequestsARunWithTheSameSeedSends() {
        QueueingModel model = new QueueingModel(1);
        QueueingModel.Grid grid = new QueueingModel.Grid(1_000, 1, 5_000);

        int[] once = model.queueLengths(Workload.FINE_GRAIN, 0.9, 7, grid);
        int[] again = model.queueLengths(Workload.FINE_GRAIN, 0.9, 7, grid);
        int[] other = model.queueLengths(Workload.FINE_GRAIN, 0.9, 8, grid);

        assertThat(again).isEqualTo(once);
        assertThat(other).isNotEqualTo(once);
        assertThatThrownBy(() -> new QueueingModel(2).queueLengths(Workload.FINE_GRAIN, 0.9, 7, grid))
                .isInstanceOf(IllegalStateException.class);
    }
}
