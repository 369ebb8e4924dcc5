package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.HostingConfig;
import io.neptune.server.SchedulingConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a service runtime tells its service of partitions placed on the node or removed from it while
 * it runs: the order of the callbacks, {@code partitions()} around them, calls refused once a
 * partition left, and {@code partitionRemoved} never under a call still running.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceRuntimePlacementTest {
    @TempDir
    Path data;

    private final LatchTestService service = new LatchTestService();
    private ServiceRuntime runtime;

    @BeforeEach
    void startWithNoPartition() {
        runtime = new ServiceRuntime(NodeId.of("n1"), ServiceDescriptor.of(LatchTestService.class), service,
                HostingConfig.builder().partitions().workers(2).build(), SchedulingConfig.defaults());
        runtime.start(data);
    }

    @AfterEach
    void close() {
        service.release();
        runtime.close();
    }

    @Test
    void anAddedPartitionIsPreparedBeforeItsFirstCallAndReleasedAfterItsLastOne() throws Exception {
        assertThat(service.environment().partitions()).isEmpty();
        assertThat(hold(0).get(10, TimeUnit.SECONDS).status()).isEqualTo(Status.NOT_HOSTED);

        runtime.partitions().partitionAdded(0);
        runtime.partitions().place(Set.of(0));
        assertThat(service.environment().partitions()).containsExactly(0);
        CompletableFuture<ResponseMessage> running = hold(0);
        assertThat(service.awaitHolding()).isTrue();

        runtime.partitions().place(Set.of());   // the partition leaves: new calls are refused at once
        assertThat(service.environment().partitions()).isEmpty();
        assertThat(hold(0).get(10, TimeUnit.SECONDS).status()).isEqualTo(Status.NOT_HOSTED);
        CompletableFuture<Boolean> removed = CompletableFuture.supplyAsync(() -> {
            try {
                return runtime.partitions().partitionRemoved(0, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // not under the running call
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !removed.isDone());
        service.release();
        assertThat(removed.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(running.get(10, TimeUnit.SECONDS).status()).isEqualTo(Status.OK);
        assertThat(service.events()).containsExactly("start []", "added 0 []", "hold 0", "held 0", "removed 0 []");
    }

    @Test
    void aCallStillRunningAfterTheWaitKeepsTheServiceFromBeingTold() throws Exception {
        runtime.partitions().partitionAdded(1);
        runtime.partitions().place(Set.of(1));
        CompletableFuture<ResponseMessage> running = hold(1);
        assertThat(service.awaitHolding()).isTrue();
        runtime.partitions().place(Set.of());
        assertThat(runtime.partitions().partitionRemoved(1, Duration.ofMillis(50))).isFalse();
        service.release();
        assertThat(running.get(10, TimeUnit.SECONDS).status()).isEqualTo(Status.OK);
        assertThat(service.events()).doesNotContain("removed 1 []");
    }

    @Test
    void aServiceThatRefusesAPartitionFailsTheAddAndHostsNothing() {
        service.refuse();
        assertThatThrownBy(() -> runtime.partitions().partitionAdded(1)).isInstanceOf(NeptuneException.class)
                .hasMessageStartingWith("NEP-PLACE-008 n1: latch.partitionAdded(1) threw")
                .hasMessageContaining("no room for partition 1");
        assertThat(runtime.partitions().hosts(1)).isFalse();
        assertThat(service.environment().partitions()).isEmpty();
    }

    @Test
    void callsIntoTheServiceForAPartitionNotHostedAreRefused() {
        byte[] payload = "{}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> runtime.executeWrite(0, "hold", payload, 1, RequestId.NONE))
                .isInstanceOf(NeptuneException.class).hasMessage("n1 does not host latch#0");
        assertThat(runtime.digest(0)).isEmpty();   // no @Digest method: nothing to refuse
        assertThatThrownBy(() -> runtime.partitions().partitionAdded(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    private CompletableFuture<ResponseMessage> hold(int partition) {
        RequestMessage request = new RequestMessage(0, "latch", partition, "hold", AccessMode.READ, 30_000, 0,
                RequestId.NONE, "{}".getBytes(StandardCharsets.UTF_8));
        CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
        runtime.submit(request, ServiceDescriptor.of(LatchTestService.class).methods().get("hold"), response::complete);
        return response;
    }
}
