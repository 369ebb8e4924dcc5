package io.neptune.core.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ${...}} in config string values, and the names of the variables and properties that give keys. */
class ValueExpansionTest {
    private static final Map<String, String> ENVIRONMENT = Map.of("A", "alpha", "EMPTY", "");

    private static String expand(String text) {
        return ValueExpansion.expand("k", text, ENVIRONMENT);
    }

    @Test
    void referencesDefaultsAndEscapesExpandAndOtherDollarsStayAsWritten() {
        assertThat(expand("${A}-${A}")).isEqualTo("alpha-alpha");
        assertThat(expand("${MISSING:-x:y}")).as("a default may hold a colon").isEqualTo("x:y");
        assertThat(expand("${EMPTY:-}")).as("an empty default").isEmpty();
        assertThat(expand("${A:-unused}")).isEqualTo("alpha");
        assertThat(expand("$${A} $$ $A {A}")).as("only $${ is an escape").isEqualTo("${A} $$ $A {A}");
        assertThat(expand("$${A}${A}")).isEqualTo("${A}alpha");
        assertThat(ValueExpansion.expands("no references $ here")).isFalse();
    }

    @Test
    void aReferenceThatIsNotOneOfTheFormsIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> expand("${}")).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.key()).isEqualTo("k")).hasMessageStartingWith("k: '${}' (expected: ${VAR}");
        assertThatThrownBy(() -> expand("${1A}")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("k: '${1A}' (expected:");
        assertThatThrownBy(() -> expand("${file:}")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("k: '${file:}' names no file");
    }

    @Test
    void aVariableIsNamedByItsKeyPathUpperCasedWithDotsAndDashesAsUnderscores() {
        assertThat(ConfigSources.variable("membership.bind-address")).isEqualTo("NEPTUNE_MEMBERSHIP_BIND_ADDRESS");
        assertThat(ConfigSources.property("membership.bind-address")).isEqualTo("neptune.membership.bind-address");
    }
}
