package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RequestIdTest {
    @Test
    void toStringIsThirtyTwoHexDigits() {
        assertThat(new RequestId(0x0123456789abcdefL, -1L)).hasToString("0123456789abcdefffffffffffffffff");
        assertThat(new RequestId(0, 1)).hasToString("00000000000000000000000000000001");
        assertThat(RequestId.random().toString()).matches("[0-9a-f]{32}");
    }

    @Test
    void randomIdsDoNotRepeatWithinOrAcrossThreads() {
        Set<RequestId> ids = ConcurrentHashMap.newKeySet();
        IntStream.range(0, 4).parallel().forEach(thread -> {
            Set<RequestId> local = new HashSet<>();
            for (int i = 0; i < 50_000; i++) {
                local.add(RequestId.random());
            }
            ids.addAll(local);
        });
        assertThat(ids).hasSize(200_000);
    }

    @Test
    void parseReadsWhatToStringWrites() {
        for (int i = 0; i < 100; i++) {
            RequestId id = RequestId.random();
            assertThat(RequestId.parse(id.toString())).isEqualTo(id);
        }
        assertThat(RequestId.parse("0123456789ABCDEFffffffffffffffff")).isEqualTo(new RequestId(0x0123456789abcdefL, -1L));
    }

    @Test
    void parseNamesWhatIsWrong() {
        assertThatThrownBy(() -> RequestId.parse("abc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("request id: 'abc' (expected: 32 hex digits)");
        assertThatThrownBy(() -> RequestId.parse("0123456789abcdefffffffffffffffxg"))
                .hasMessageContaining("expected: 32 hex digits");
        assertThatThrownBy(() -> RequestId.parse("+123456789abcdefffffffffffffffff"))
                .hasMessageContaining("expected: 32 hex digits");
        assertThatThrownBy(() -> RequestId.parse("0".repeat(32))).hasMessageContaining("not all zeros");
    }

    @Test
    void valueBased() {
        assertThat(new RequestId(1, 2)).isEqualTo(new RequestId(1, 2)).isNotEqualTo(new RequestId(2, 1));
    }

    @Test
    void anInnerWritesIdIsTheSameForEveryRunOfItsOuterRequestAndDiffersByRank() {
        RequestId outer = RequestId.parse("0123456789abcdef0123456789abcdef");
        assertThat(outer.derived(1)).isEqualTo(RequestId.parse("0123456789abcdef0123456789abcdef").derived(1))
                .isNotEqualTo(outer).isNotEqualTo(outer.derived(2));
        Set<RequestId> ids = new HashSet<>();
        for (long high = 0; high < 100; high++) {
            for (int rank = 1; rank <= 100; rank++) {
                ids.add(new RequestId(high, 1).derived(rank));
            }
        }
        assertThat(ids).as("ids derived from 100 ids by 100 ranks").hasSize(10_000).doesNotContain(RequestId.NONE);
    }

    @Test
    void anInnerWriteOfARequestWithoutAnIdGetsAFreshOneEachTime() {
        assertThat(RequestId.NONE.derived(1)).isNotEqualTo(RequestId.NONE.derived(1)).isNotEqualTo(RequestId.NONE);
        assertThatThrownBy(() -> RequestId.random().derived(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rank: 0 (expected: >= 1)");
    }
}
