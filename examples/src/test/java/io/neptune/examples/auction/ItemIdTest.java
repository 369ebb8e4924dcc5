package io.neptune.examples.auction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Item ids have exactly one spelling. */
class ItemIdTest {
    @Test
    void parsesTheCanonicalForm() {
        assertThat(ItemId.parse("17-1")).isEqualTo(new ItemId(17, 1));
        assertThat(ItemId.parse("0-42").toString()).isEqualTo("0-42");
    }

    @Test
    void refusesAliases() {
        for (String alias : new String[] {"+17-001", "17-001", "017-1", "17-+1", "-1-1", "17-0", "17--1", "17-1 ", "1_7-1",
                "17-", "-1", "99999999999-1"}) {
            assertThatThrownBy(() -> ItemId.parse(alias)).as(alias).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("itemId");
        }
    }
}
