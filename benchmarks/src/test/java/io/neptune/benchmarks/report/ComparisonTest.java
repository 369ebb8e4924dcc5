package io.neptune.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The agree? rule at the edges of its tolerance. */
class ComparisonTest {
    @Test
    void aboutAgreesWithinTwentyPercentOfTheNumberInclusiveAndNotBeyond() {
        Claim claim = Claim.about("Fig. 3.2", "an order of magnitude", 10, "×", 1);

        assertThat(claim.agrees(8.0)).isTrue();
        assertThat(claim.agrees(12.0)).isTrue();
        assertThat(claim.agrees(7.99)).isFalse();
        assertThat(claim.agrees(12.01)).isFalse();
        assertThat(claim.toleranceText()).isEqualTo("same direction, within 20%");
    }

    @Test
    void aboutRequiresTheSameDirectionEvenWithinTheTolerance() {
        Claim tenPercentFaster = Claim.about("Fig. 5.3", "L1 over L2", 1.1, "×", 1);
        Claim twelvePercent = Claim.about("Fig. 5.3", "L1 over L2", 12, "%", 0);

        assertThat(tenPercentFaster.agrees(1.05)).isTrue();
        assertThat(tenPercentFaster.agrees(0.95)).as("within 0.22 of 1.1, but slower, not faster").isFalse();
        assertThat(tenPercentFaster.agrees(1.0)).as("no effect is no direction").isFalse();
        assertThat(twelvePercent.agrees(0)).isFalse();
    }

    @Test
    void aBoundHasNoToleranceUnlessTheRowGivesOne() {
        Claim bound = Claim.atMost("Fig. 3.3/3.5", "within 20% of ideal", 1.2, "× ideal");
        Claim loose = Claim.atMost("Fig. 4.10", "about the same", 1, "×").tolerance(0.2);

        assertThat(bound.agrees(1.2)).isTrue();
        assertThat(bound.agrees(1.2001)).isFalse();
        assertThat(bound.toleranceText()).isEqualTo("at most the bound");
        assertThat(loose.agrees(1.2)).isTrue();
        assertThat(loose.agrees(1.2001)).isFalse();
        assertThat(loose.toleranceText()).isEqualTo("at most the bound + 20%");
    }

    @Test
    void aFloorAllowsTwentyPercentBelowIt() {
        Claim floor = Claim.atLeast("Fig. 4.12", "bronze keeps 20%", 20, "%");

        assertThat(floor.agrees(16)).isTrue();
        assertThat(floor.agrees(15.99)).isFalse();
        assertThat(floor.numberText()).isEqualTo("≥ 20%");
    }

    @Test
    void aDirectionIsStrict() {
        assertThat(Claim.below("Fig. 5.4", "drops", 1, "×").agrees(1)).isFalse();
        assertThat(Claim.below("Fig. 5.4", "drops", 1, "×").agrees(0.99)).isTrue();
        assertThat(Claim.above("Fig. 5.4", "a tail", 0, " calls").agrees(0)).isFalse();
        assertThat(Claim.above("Fig. 5.4", "a tail", 0, " calls").agrees(1)).isTrue();
    }

    @Test
    void aRowWithoutANumberAgreesWithNothingAndATolerancePastOneIsRefused() {
        assertThatThrownBy(() -> Claim.none("micro", "(design)").agrees(1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Claim.about("x", "y", 1, "", 0).tolerance(1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tolerance: 1.5 (expected: >= 0 and < 1)");
    }
}
