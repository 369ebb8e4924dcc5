package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Equations 4.2.2-4.2.4, and what a yield function or a class may not be. */
class YieldFunctionTest {
    private static final long MS = 1_000_000L;
    private static final Duration D = Duration.ofSeconds(2);

    @Test
    void throughputIsFullUntilTheDeadlineAndZeroAfter() {
        YieldFunction y = YieldFunction.throughput(4, D);
        assertThat(y.yieldAt(0)).isEqualTo(4);
        assertThat(y.yieldAt(2_000 * MS)).isEqualTo(4);
        assertThat(y.yieldAt(2_000 * MS + 1)).isZero();
        assertThat(y.fullYield()).isEqualTo(4);
        assertThat(y.deadline()).isEqualTo(D);
    }

    @Test
    void resptimeFallsLinearlyToZeroAtTheDeadline() {
        YieldFunction y = YieldFunction.resptime(4, D);
        assertThat(y.yieldAt(0)).isEqualTo(4);
        assertThat(y.yieldAt(500 * MS)).isCloseTo(3, within(1e-12));
        assertThat(y.yieldAt(2_000 * MS)).isCloseTo(0, within(1e-12));
        assertThat(y.yieldAt(3_000 * MS)).isZero();
    }

    @Test
    void hybridIsFullUntilThePreDeadlineThenFallsToTheDropPenaltyAtTheDeadline() {
        YieldFunction y = YieldFunction.hybrid(4, Duration.ofSeconds(1), 2, D);
        assertThat(y.yieldAt(1_000 * MS)).isEqualTo(4);
        assertThat(y.yieldAt(1_500 * MS)).isCloseTo(3, within(1e-12));
        assertThat(y.yieldAt(2_000 * MS)).isCloseTo(2, within(1e-12));
        assertThat(y.yieldAt(2_000 * MS + 1)).isZero();
        assertThat(y).hasToString("hybrid(C=4.0, D'=PT1S, C'=2.0, D=PT2S)");
    }

    @Test
    void badParametersAreNamed() {
        assertThatThrownBy(() -> YieldFunction.throughput(0, D)).hasMessage(
                "throughput: full yield C = 0.0 (expected: a positive number)");
        assertThatThrownBy(() -> YieldFunction.resptime(1, Duration.ofSeconds(-1))).hasMessage(
                "resptime: deadline D = PT-1S (expected: > 0)");
        assertThatThrownBy(() -> YieldFunction.hybrid(4, Duration.ofSeconds(3), 2, D)).hasMessage(
                "hybrid: pre-deadline D' = PT3S (expected: 0 to D = PT2S)");
        assertThatThrownBy(() -> YieldFunction.hybrid(4, Duration.ofSeconds(1), 5, D)).hasMessage(
                "hybrid: drop penalty C' = 5.0 (expected: 0 to C = 4.0)");
        assertThatThrownBy(() -> YieldFunction.throughput(Double.NaN, D)).hasMessageContaining("full yield C = NaN");
    }

    @Test
    void aCustomFunctionMustNotRise() {
        YieldFunction rising = custom(r -> r < 1_000 * MS ? 1 : 2);
        assertThatThrownBy(() -> YieldFunction.check("class vip yield", rising))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("class vip yield: yield rises from 1.0 to 2.0 at PT1S ")
                .hasMessageEndingWith("(expected: a non-increasing function of the response time)");
        assertThatThrownBy(() -> new ServiceClass("vip", rising, 0)).hasMessageContaining("service class vip yield");
    }

    @Test
    void aCustomFunctionMustNotBeNegativeAndMustYieldSomething() {
        assertThatThrownBy(() -> YieldFunction.check("y", custom(r -> r > 100 * MS ? -1 : 1)))
                .hasMessageStartingWith("y: yield -1.0 at").hasMessageEndingWith("(expected: a non-negative number)");
        assertThatThrownBy(() -> YieldFunction.check("y", custom(r -> 0))).hasMessage(
                "y: full yield 0.0 (expected: a positive number)");
        YieldFunction step = custom(r -> r < 500 * MS ? 3 : r < 1_500 * MS ? 1 : 0);
        assertThat(YieldFunction.check("y", step)).isSameAs(step);
    }

    @Test
    void classesHaveNamesAndSharesThatMakeSense() {
        YieldFunction y = YieldFunction.throughput(1, D);
        assertThatThrownBy(() -> new ServiceClass("", y, 0)).hasMessageContaining("service class name ''");
        assertThatThrownBy(() -> new ServiceClass("gold class", y, 0)).hasMessageContaining("'gold class'");
        assertThatThrownBy(() -> new ServiceClass("gold", y, 1.5)).hasMessage(
                "service class gold share: 1.5 (expected: a fraction from 0 to 1)");
        assertThatThrownBy(() -> new ServiceClass("gold", y, -0.1)).hasMessageContaining("share: -0.1");
        assertThat(ServiceClass.defaultClass().name()).isEqualTo(ServiceClass.DEFAULT_NAME);
    }

    private static YieldFunction custom(java.util.function.LongToDoubleFunction f) {
        return new YieldFunction() {
            @Override
            public double yieldAt(long responseNanos) {
                return f.applyAsDouble(responseNanos);
            }

            @Override
            public Duration deadline() {
                return D;
            }
        };
    }
}
