package io.neptune.examples.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.CallOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class IdempotencyKeyTest {
    private static final Caller USER = new Caller("user alice", false, null);
    private static final List<String> PATH = List.of("api", "discussion", "general", "messages");
    private static final byte[] BODY = "{\"author\":\"ada\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void noHeaderNoRequestId() {
        assertThat(IdempotencyKey.requestId(null, USER, "POST", PATH, BODY)).isEmpty();
    }

    @Test
    void aKeyGivesTheSameValidRequestIdEveryTime() {
        String id = IdempotencyKey.requestId("k-1", USER, "POST", PATH, BODY).orElseThrow();
        assertThat(id).matches("[0-9a-f]{32}");
        assertThat(IdempotencyKey.requestId("k-1", USER, "POST", PATH, BODY.clone())).contains(id);
        assertThat(CallOptions.builder().requestId(id).build().requestId()).contains(id);
    }

    @Test
    void theSameKeyOnAnotherCallerMethodPathOrBodyIsAnotherRequest() {
        String id = IdempotencyKey.requestId("k-1", USER, "POST", PATH, BODY).orElseThrow();
        assertThat(IdempotencyKey.requestId("k-1", Caller.ANONYMOUS, "POST", PATH, BODY)).isNotEqualTo(Optional.of(id));
        assertThat(IdempotencyKey.requestId("k-1", USER, "PUT", PATH, BODY)).isNotEqualTo(Optional.of(id));
        assertThat(IdempotencyKey.requestId("k-1", USER, "POST", List.of("api", "discussion", "other", "messages"),
                BODY)).isNotEqualTo(Optional.of(id));
        assertThat(IdempotencyKey.requestId("k-1", USER, "POST", PATH, "{}".getBytes(StandardCharsets.UTF_8)))
                .isNotEqualTo(Optional.of(id));
        assertThat(IdempotencyKey.requestId("k-2", USER, "POST", PATH, BODY)).isNotEqualTo(Optional.of(id));
        // fields are length-prefixed: moving a character from one field to the next changes the id
        assertThat(IdempotencyKey.requestId("k-1", USER, "POST", List.of("api", "discussion", "general", "message"),
                "s{\"author\":\"ada\"}".getBytes(StandardCharsets.UTF_8))).isNotEqualTo(Optional.of(id));
    }

    @Test
    void aKeyOutsideOneTo255PrintableAsciiCharactersIsRefusedWithoutRepeatingIt() {
        assertThatThrownBy(() -> IdempotencyKey.requestId("", USER, "POST", PATH, BODY))
                .isInstanceOfSatisfying(HttpStatusException.class, e -> assertThat(e.status()).isEqualTo(400))
                .hasMessage("Idempotency-Key: empty (expected: 1 to 255 printable ASCII characters, such as a random"
                        + " UUID)");
        assertThatThrownBy(() -> IdempotencyKey.requestId("s".repeat(256), USER, "POST", PATH, BODY))
                .hasMessageStartingWith("Idempotency-Key: 256 characters (expected");
        assertThatThrownBy(() -> IdempotencyKey.requestId("secret\u00e9", USER, "POST", PATH, BODY))
                .hasMessageStartingWith("Idempotency-Key: character 233 at index 6 (expected")
                .hasMessageNotContaining("secret");
        assertThat(IdempotencyKey.requestId("k".repeat(255), USER, "POST", PATH, BODY)).isPresent();
        assertThat(IdempotencyKey.requestId(" ~", USER, "POST", PATH, BODY)).isPresent();
    }
}
