package io.neptune.examples.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.examples.cache.CacheService.CacheUpdate;
import org.junit.jupiter.api.Test;

/** A cache request that is wrong says which field is wrong and what it should be. */
class CacheRequestsTest {
    @Test
    void aValueThatIsNotBase64IsRefusedNamingTheField() {
        assertThatThrownBy(() -> new CacheUpdate("k", "v-r0-p1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("value: not base64 (")
                .hasMessageContaining("expected: base64 of at most " + CacheService.MAX_VALUE_BYTES + " bytes");
    }

    @Test
    void aValueOverTheLimitIsRefusedSayingSo() {
        String large = java.util.Base64.getEncoder().encodeToString(new byte[CacheService.MAX_VALUE_BYTES + 1]);
        assertThatThrownBy(() -> new CacheUpdate("k", large))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("value: too large");
        assertThat(new CacheUpdate("k", "aGk=").value()).isEqualTo("aGk=");
    }
}
