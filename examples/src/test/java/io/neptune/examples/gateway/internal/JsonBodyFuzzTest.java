package io.neptune.examples.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz test of the gateway's request bodies (docs/SECURITY.md, Fuzzing): {@link JsonBody} parses the
 * body of every {@code POST} and the routes read its fields. The contract: a value, or an
 * {@link HttpStatusException} with status 400 (answered to the caller), never another exception,
 * which would answer 500.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS) // Jazzer's per-input timeout when fuzzing
class JsonBodyFuzzTest {
    /** The fields the auction, discussion and BLAST routes read, strings then integers. */
    private static final List<String> TEXT_FIELDS = List.of("title", "seller", "bidder", "author", "subject", "body",
            "sequence");
    private static final List<String> INTEGER_FIELDS = List.of("startingPrice", "amount", "parentId", "k");

    @FuzzTest(maxDuration = "5m")
    void bodies(byte[] input) {
        JsonBody body;
        try {
            body = JsonBody.parse(input);
        } catch (HttpStatusException refused) {
            assertThat(refused.status()).isEqualTo(400);
            return;
        }
        for (String field : TEXT_FIELDS) {
            try {
                assertThat(body.text(field)).isNotNull();
            } catch (HttpStatusException refused) {
                assertThat(refused.status()).isEqualTo(400);
            }
        }
        for (String field : INTEGER_FIELDS) {
            try {
                assertThat(Math.abs(body.integer(field))).isLessThanOrEqualTo(JsonBody.MAX_SAFE_INTEGER);
                body.optionalInteger(field);
            } catch (HttpStatusException refused) {
                assertThat(refused.status()).isEqualTo(400);
            }
        }
    }
}
