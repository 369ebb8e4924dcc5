package io.neptune.examples.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.server.ClusterAdmin.NodeStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Node rates from announcements and nodes remembered as down, on a fake clock. */
class NodeHistoryTest {
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(100 * SECOND);
    private final NodeHistory history = new NodeHistory(now::get);

    private static NodeStatus status(String node, long incarnation, long served, long heardNanos) {
        return new NodeStatus(node, 42, "127.0.0.1:1", List.of("echo"), 0, served, incarnation, heardNanos);
    }

    @Test
    void theRateIsTheServedCountsChangeOverTheTimeBetweenAnnouncements() {
        assertThat(history.observe(List.of(status("a", 1, 1000, 10 * SECOND))).get(0).requestsPerSecond()).isZero();
        // The same announcement seen again changes nothing.
        assertThat(history.observe(List.of(status("a", 1, 1000, 10 * SECOND))).get(0).requestsPerSecond()).isZero();
        assertThat(history.observe(List.of(status("a", 1, 1500, 12 * SECOND))).get(0).requestsPerSecond())
                .isEqualTo(250.0);
        // A restart (new incarnation) resets the count: no negative rate.
        assertThat(history.observe(List.of(status("a", 2, 10, 13 * SECOND))).get(0).requestsPerSecond()).isZero();
    }

    @Test
    void aNodeThatLeftIsDownForAnHourThenForgotten() {
        history.observe(List.of(status("a", 1, 0, SECOND), status("b", 1, 0, SECOND)));
        List<NodeHistory.NodeView> views = history.observe(List.of(status("a", 1, 0, SECOND)));
        assertThat(views).extracting(NodeHistory.NodeView::node).containsExactly("a", "b");
        assertThat(views.get(1).down()).isTrue();
        assertThat(views.get(1).address()).isEqualTo("127.0.0.1:1");

        now.addAndGet(NodeHistory.FORGET_AFTER.minus(Duration.ofSeconds(1)).toNanos());
        assertThat(history.observe(List.of(status("a", 1, 0, SECOND)))).hasSize(2);
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(history.observe(List.of(status("a", 1, 0, SECOND)))).extracting(NodeHistory.NodeView::node)
                .containsExactly("a");
    }
}
