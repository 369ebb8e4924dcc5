package io.neptune.examples.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.neptune.core.ClassStats;
import io.neptune.server.ClusterAdmin.NodeStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The dashboard's per-class minute: differences of announced counters, summed over nodes. */
class ClassHistoryTest {
    private final AtomicLong nanos = new AtomicLong(Duration.ofHours(1).toNanos());
    private final ClassHistory history = new ClassHistory(nanos::get);

    @Test
    void sumsTheLastMinuteOverTheNodesAndSharesTheWorkersTime() {
        history.observe(List.of(status("a", gold(100, 10, 400, 300, 5)), status("b", gold(50, 0, 200, 200, 5))));
        advance(30);
        List<ClassHistory.ClassView> views = history.observe(List.of(
                status("a", gold(160, 20, 640, 480, 8), bronze(40, 4, 40, 30, 4)),
                status("b", gold(80, 0, 320, 320, 8))));
        assertThat(views).extracting(ClassHistory.ClassView::serviceClass).containsExactly("bronze", "gold");
        ClassHistory.ClassView gold = views.get(1);
        assertThat(gold.arrivals()).isEqualTo(60 + 30);
        assertThat(gold.dropped()).isEqualTo(10);
        assertThat(gold.offeredYield()).isCloseTo(240 + 120, within(1e-9));
        assertThat(gold.realizedYield()).isCloseTo(180 + 120, within(1e-9));
        assertThat(gold.lossPercent()).isCloseTo(100.0 * 60 / 360, within(1e-9));
        ClassHistory.ClassView bronze = views.get(0);
        assertThat(bronze.arrivals()).as("first seen now: no minute yet").isZero();
        assertThat(gold.share()).as("gold used 6 s, bronze nothing yet in the window").isCloseTo(1, within(1e-9));
    }

    @Test
    void aRestartedNodeCountsFromZeroAndOldSamplesLeaveTheWindow() {
        history.observe(List.of(status("a", gold(1000, 0, 1000, 1000, 10))));
        advance(30);
        List<ClassHistory.ClassView> restarted = history.observe(List.of(status("a", gold(5, 1, 5, 4, 1))));
        assertThat(restarted.get(0).arrivals()).isEqualTo(5);
        advance(30);
        history.observe(List.of(status("a", gold(65, 1, 65, 64, 2))));
        advance(45);
        List<ClassHistory.ClassView> later = history.observe(List.of(status("a", gold(95, 1, 95, 94, 3))));
        assertThat(later.get(0).arrivals()).as("from the latest sample at or before the minute's start (75 s ago)")
                .isEqualTo(90);
        advance(120);
        assertThat(history.observe(List.of())).as("a node silent for the whole window is gone").isEmpty();
    }

    private void advance(int seconds) {
        nanos.addAndGet(Duration.ofSeconds(seconds).toNanos());
    }

    private NodeStatus status(String node, ClassStats... classes) {
        return new NodeStatus(node, 1, "127.0.0.1:1", List.of("work"), 0, 0, 1, nanos.get(),
                Map.of("work", List.of(classes)));
    }

    private static ClassStats gold(long arrivals, long dropped, double offered, double realized, double used) {
        return new ClassStats("gold", 0.2, 0, 0, arrivals, arrivals - dropped, dropped, 0, 0, offered, realized, used);
    }

    private static ClassStats bronze(long arrivals, long dropped, double offered, double realized, double used) {
        return new ClassStats("bronze", 0.2, 0, 0, arrivals, arrivals - dropped, dropped, 0, 0, offered, realized,
                used);
    }
}
