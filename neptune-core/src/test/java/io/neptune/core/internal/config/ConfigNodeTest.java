package io.neptune.core.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigNodeTest {
    @Test
    void durationsTakeEveryUnitFromNanosecondsToDays() {
        assertThat(ConfigNode.parseDuration("k", "250ns")).isEqualTo(Duration.ofNanos(250));
        assertThat(ConfigNode.parseDuration("k", "3us")).isEqualTo(Duration.ofNanos(3_000));
        assertThat(ConfigNode.parseDuration("k", "10ms")).isEqualTo(Duration.ofMillis(10));
        assertThat(ConfigNode.parseDuration("k", "1.5s")).isEqualTo(Duration.ofMillis(1_500));
        assertThat(ConfigNode.parseDuration("k", "2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ConfigNode.parseDuration("k", "1h")).isEqualTo(Duration.ofHours(1));
        assertThat(ConfigNode.parseDuration("k", "365d")).isEqualTo(Duration.ofDays(365));
    }

    @Test
    void aDurationWithoutAUnitNamesTheKey() {
        assertThatThrownBy(() -> ConfigNode.parseDuration("--validity", "90"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("--validity: '90' (expected: a duration such as 10ms, 1s, 1.5s, 2m or 90d)");
    }
}
