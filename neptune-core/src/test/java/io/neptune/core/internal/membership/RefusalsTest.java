package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RefusalsTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final Refusals refusals = new Refusals(NodeId.of("self"), now::get);

    @Test
    void countsEveryRefusalByKind() {
        refusals.record(Refusal.OTHER_NODE, "a");
        refusals.record(Refusal.OTHER_NODE, "b");
        refusals.record(Refusal.REPLAYED, "c");

        assertThat(refusals.count(Refusal.OTHER_NODE)).isEqualTo(2);
        assertThat(refusals.count(Refusal.REPLAYED)).isEqualTo(1);
        assertThat(refusals.count(Refusal.UNTRUSTED_PEER)).isZero();
        assertThat(refusals.total()).isEqualTo(3);
    }

    @Test
    void codesAreStableAndDistinct() {
        assertThat(Refusal.values()).extracting(Refusal::code).containsExactly("NEP-SEC-030", "NEP-SEC-031",
                "NEP-SEC-032", "NEP-SEC-033", "NEP-SEC-034", "NEP-SEC-035", "NEP-SEC-036");
        assertThat(Refusal.UNTRUSTED_PEER.tag()).isEqualTo("untrusted-peer");
    }
}
