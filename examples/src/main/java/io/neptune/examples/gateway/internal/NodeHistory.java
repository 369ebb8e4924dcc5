package io.neptune.examples.gateway.internal;

import io.neptune.server.ClusterAdmin.NodeStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * What the gateway remembers about the nodes it has seen, for the dashboard: each node's request
 * rate, from the served counts of its two latest announcements and the times they arrived, and
 * the nodes that left the yellow page, shown as {@code DOWN} until they come back or for at most
 * {@link #FORGET_AFTER} (and at most {@link #MAX_NODES} of them).
 *
 * <p>Thread-safety: thread-safe; {@link #observe} synchronizes on this object.
 */
public final class NodeHistory {
    /** How long a node that left is still shown as {@code DOWN}. */
    public static final Duration FORGET_AFTER = Duration.ofHours(1);
    /** Most nodes remembered; beyond it, the one unseen longest is forgotten. */
    public static final int MAX_NODES = 1024;

    private final LongSupplier nanoTime;
    private final Map<String, Seen> nodes = new LinkedHashMap<>();

    /** One announcement's served count and when it arrived. */
    private record Sample(long incarnation, long served, long heardNanos) {}

    private record Seen(NodeStatus status, Sample latest, Sample previous, long lastSeenNanos) {}

    /**
     * A node as the dashboard shows it.
     *
     * @param node node id
     * @param pid its process id when last seen
     * @param address its address when last seen
     * @param down whether it has left the yellow page
     * @param requestsPerSecond requests it answered per second between its two latest announcements; 0 when down
     * @param adminUrl the base URL of its admin port ({@code /metrics}, {@code /health/ready}) when last seen;
     *     empty if it announced none
     */
    public record NodeView(String node, long pid, String address, boolean down, double requestsPerSecond,
            String adminUrl) {}

    /** Creates an empty history over {@code nanoTime} ({@code System::nanoTime} outside tests). */
    public NodeHistory(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Records the nodes now in the yellow page and returns them plus the remembered absent ones, by id. */
    public synchronized List<NodeView> observe(List<NodeStatus> live) {
        long now = nanoTime.getAsLong();
        for (NodeStatus status : live) {
            Sample sample = new Sample(status.incarnation(), status.served(), status.announcedAtNanos());
            Seen before = nodes.remove(status.node());
            Seen seen;
            if (before == null) {
                seen = new Seen(status, sample, sample, now);
            } else if (before.latest().heardNanos() == sample.heardNanos()) {
                seen = new Seen(status, before.latest(), before.previous(), now);
            } else {
                seen = new Seen(status, sample, before.latest(), now);
            }
            nodes.put(status.node(), seen); // re-inserted: the map runs from unseen longest to seen last
        }
        forget(now);
        Set<String> present = live.stream().map(NodeStatus::node).collect(Collectors.toSet());
        List<NodeView> views = new ArrayList<>();
        nodes.forEach((id, seen) -> {
            boolean down = !present.contains(id);
            views.add(new NodeView(id, seen.status().pid(), seen.status().address(), down, down ? 0 : rate(seen),
                    seen.status().adminUrl()));
        });
        views.sort(java.util.Comparator.comparing(NodeView::node));
        return views;
    }

    private void forget(long now) {
        long horizon = FORGET_AFTER.toNanos();
        Iterator<Seen> oldestFirst = nodes.values().iterator();
        while (oldestFirst.hasNext()) {
            Seen seen = oldestFirst.next();
            if (now - seen.lastSeenNanos() <= horizon && nodes.size() <= MAX_NODES) {
                break;
            }
            oldestFirst.remove();
        }
    }

    private static double rate(Seen seen) {
        Sample from = seen.previous();
        Sample to = seen.latest();
        long elapsed = to.heardNanos() - from.heardNanos();
        if (from.incarnation() != to.incarnation() || elapsed <= 0 || to.served() < from.served()) {
            return 0;
        }
        double perSecond = (to.served() - from.served()) * 1e9 / elapsed;
        return Math.round(perSecond * 10) / 10.0;
    }
}
