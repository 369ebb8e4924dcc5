package io.neptune.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.BalancingPolicy;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {
    /** The help listed five policies by hand and went stale when load-aware, p2c and server-partitioning came. */
    @Test
    void theHelpListsEveryBalancingPolicy() {
        String help = new CommandLine(new DemoCommand()).getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
        for (BalancingPolicy policy : BalancingPolicy.values()) {
            assertThat(help).contains(policy.configName());
        }
        assertThat(help).contains("(default: random-polling)");
    }
}
