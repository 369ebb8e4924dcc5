package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.ServiceClass;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.YieldFunction;
import io.neptune.server.EchoTestService;
import io.neptune.server.HostingConfig;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The registry's per-service and per-class meters, read from the runtime's counters at scrape time. */
class NodeMetricsTest {
    @Test
    void aClassAwareServiceHasMetersPerClassAndReason() {
        SchedulingConfig scheduling = SchedulingConfig.builder().policy(SchedulingPolicy.EDF)
                .serviceClass(new ServiceClass("gold", YieldFunction.throughput(2, Duration.ofSeconds(1)), 0.5))
                .build();
        ServiceRuntime echo = new ServiceRuntime(NodeId.of("n1"), ServiceDescriptor.of(EchoTestService.class),
                new EchoTestService(), HostingConfig.all(), scheduling);
        try (NodeMetrics metrics = NodeMetrics.own(NodeId.of("n1"))) {
            metrics.bindServices(java.util.List.of(echo));
            String text = metrics.scrape();
            assertThat(text).contains(
                    "neptune_class_arrivals_total{class=\"gold\",node=\"n1\",service=\"echo\"} 0.0",
                    "neptune_class_dropped_total{class=\"gold\",node=\"n1\",reason=\"queue_full\",service=\"echo\"} 0.0",
                    "neptune_class_share_guaranteed{class=\"gold\",node=\"n1\",service=\"echo\"} 0.5",
                    "neptune_class_queue_depth{class=\"default\",node=\"n1\",service=\"echo\"} 0.0",
                    "neptune_service_queue_depth{node=\"n1\",service=\"echo\"} 0.0",
                    "neptune_service_workers{node=\"n1\",service=\"echo\"} 8.0",
                    "jvm_threads_live_threads{node=\"n1\"}");
        }
    }

    @Test
    void aFifoServiceHasNoClassMeters() {
        ServiceRuntime echo = new ServiceRuntime(NodeId.of("n1"), ServiceDescriptor.of(EchoTestService.class),
                new EchoTestService(), HostingConfig.all(), SchedulingConfig.defaults());
        try (NodeMetrics metrics = NodeMetrics.own(NodeId.of("n1"))) {
            metrics.bindServices(java.util.List.of(echo));
            assertThat(metrics.scrape()).contains("neptune_service_load{").doesNotContain("neptune_class_");
        }
    }
}
