package io.neptune.client.internal;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The "ideal" central load manager of the dissertation's experiments: exact outstanding requests
 * per node and service, shared by every client that is given the same tracker. Only meaningful
 * when all clients live in one JVM (benchmarks).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LoadTracker {
    private final ConcurrentHashMap<String, AtomicInteger> outstanding = new ConcurrentHashMap<>();

    /** Outstanding requests of {@code service} on {@code node}. */
    public int outstanding(NodeId node, String service) {
        AtomicInteger count = outstanding.get(key(node, service));
        return count == null ? 0 : count.get();
    }

    /**
     * Picks the candidate with the fewest outstanding requests and counts one more for it, in one
     * step, as the dissertation's central manager did: two calls choosing at once never both see
     * the same idle node. The caller must {@link #end} the request it counted.
     */
    synchronized Replica claim(String service, List<Replica> candidates) {
        Replica chosen = Selectors.leastLoaded(candidates, r -> outstanding(r.node(), service));
        outstanding.computeIfAbsent(key(chosen.node(), service), k -> new AtomicInteger()).incrementAndGet();
        return chosen;
    }

    void end(NodeId node, String service) {
        AtomicInteger count = outstanding.get(key(node, service));
        if (count != null) {
            count.decrementAndGet();
        }
    }

    private static String key(NodeId node, String service) {
        return node.value() + '/' + service;
    }
}
