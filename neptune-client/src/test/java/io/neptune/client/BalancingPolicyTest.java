package io.neptune.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Policy names in config files. */
class BalancingPolicyTest {

    @Test
    void configNamesAreKebabCaseAndRoundTrip() {
        assertThat(BalancingPolicy.RANDOM_POLLING.configName()).isEqualTo("random-polling");
        assertThat(BalancingPolicy.ROUND_ROBIN.configName()).isEqualTo("round-robin");
        for (BalancingPolicy policy : BalancingPolicy.values()) {
            assertThat(BalancingPolicy.fromConfigName(policy.configName())).isEqualTo(policy);
        }
    }

    @Test
    void unknownNameListsTheValidOnes() {
        assertThatThrownBy(() -> BalancingPolicy.fromConfigName("RANDOM_POLLING"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("policy: 'RANDOM_POLLING' (expected: one of random, round-robin, random-polling, "
                        + "broadcast, ideal, server-partitioning, load-aware, p2c)");
        assertThatThrownBy(() -> BalancingPolicy.fromConfigName(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("policy: '' (expected: one of ");
    }
}
