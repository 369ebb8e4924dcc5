package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Node ids: the accepted alphabet and the house validation message format. */
class NodeIdTest {

    @Test
    void validIdsAreValues() {
        NodeId id = NodeId.of("node-1.eu_west");
        assertThat(id.value()).isEqualTo("node-1.eu_west");
        assertThat(id).hasToString("node-1.eu_west").isEqualTo(new NodeId("node-1.eu_west"));
        assertThat(NodeId.of("x".repeat(64)).value()).hasSize(64);
    }

    @Test
    void invalidIdsAreRejectedWithNameValueAndExpectation() {
        for (String bad : new String[] {"", "a b", "node/1", "ñode", "x".repeat(65)}) {
            assertThatThrownBy(() -> NodeId.of(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("node id: '" + bad + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
    }

    @Test
    void nullIsRejected() {
        assertThatThrownBy(() -> NodeId.of(null)).isInstanceOf(NullPointerException.class).hasMessage("value");
    }
}
