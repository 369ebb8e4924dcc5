package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AlreadyAppliedException;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.NoReplicaAvailableException;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.UnknownServiceException;
import org.junit.jupiter.api.Test;

/** A failed append is recorded as unknown unless the failure proves the method never ran. */
class WorkloadTest {
    @Test
    void theClientSaysWhichFailedWritesMayHaveRun() {
        assertThat(Workload.mayHaveRun(new OutcomeUnknownException("svc#1.append", "0".repeat(31) + "1", "reset",
                null, null))).isTrue();
        assertThat(Workload.mayHaveRun(new AlreadyAppliedException("svc#1.append", 7))).isTrue();
        assertThat(Workload.mayHaveRun(new IllegalStateException("not from Neptune"))).isTrue();
        assertThat(Workload.mayHaveRun(new InvalidRequestException("bad"))).isFalse();
        assertThat(Workload.mayHaveRun(new UnknownServiceException("svc", "not hosted"))).isFalse();
        assertThat(Workload.mayHaveRun(new NoReplicaAvailableException("svc", 1, "none", null))).isFalse();
        assertThat(Workload.mayHaveRun(new DeadlineExceededException("svc#1", java.time.Duration.ofSeconds(5), "late")))
                .isFalse();
    }

    @Test
    void keysMapToPartitionsTheSameWayEverywhere() {
        assertThat(ListAppendService.partitionOf("k7")).isEqualTo(Math.floorMod("k7".hashCode(), 8));
        for (int k = 0; k < 100; k++) {
            assertThat(ListAppendService.partitionOf("k" + k)).isBetween(0, ListAppendService.PARTITIONS - 1);
        }
    }
}
