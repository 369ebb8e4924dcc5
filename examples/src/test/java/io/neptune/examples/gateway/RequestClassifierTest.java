package io.neptune.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ServiceClass;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The gateway's classification rules. */
class RequestClassifierTest {
    @Test
    void byHeaderTakesTheClientsWordOrTheDefault() {
        RequestClassifier classifier = RequestClassifier.byHeader();
        assertThat(classifier.classify(Map.of("X-Neptune-Class", " gold ")::get)).isEqualTo("gold");
        assertThat(classifier.classify(name -> null)).isEqualTo(ServiceClass.DEFAULT_NAME);
        assertThat(classifier.classify(Map.of("X-Neptune-Class", "  ")::get)).isEqualTo(ServiceClass.DEFAULT_NAME);
    }

    @Test
    void byUserMapsTheAuthenticatedUserAndIgnoresTheClassHeader() {
        RequestClassifier classifier = RequestClassifier.byUser("X-User", Map.of("ada", "gold"), "bronze");
        assertThat(classifier.classify(Map.of("X-User", "ada")::get)).isEqualTo("gold");
        assertThat(classifier.classify(Map.of("X-User", "bob", "X-Neptune-Class", "gold")::get)).isEqualTo("bronze");
        assertThat(classifier.classify(name -> null)).isEqualTo("bronze");
        assertThatThrownBy(() -> RequestClassifier.byUser("X-User", Map.of("ada", "gold star"), "bronze"))
                .hasMessageContaining("'gold star'");
    }
}
