package io.neptune.server.internal.replication.runtime;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A client of a simulation: it writes one write at a time, each with its own request id, to the
 * node it takes for the primary (any node at level 1), and retries a write that was not answered OK
 * (or ALREADY_APPLIED, which ends a call as it does in Neptune's client) with the same request id, elsewhere if told or if it waited in vain, until it is acknowledged. So
 * every write is attempted until it succeeds, and the retries test exactly-once.
 *
 * <p>At level 3 the client is also a session that reads: at a random replica, once that replica
 * applied up to the session's version floor (the highest version it saw), as the node's read path
 * waits for it. Such a read must never go back: the replica reports a version no lower than the floor,
 * and its service holds every write this session had acknowledged up to it.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimClient {
    /** How long a client waits for an answer before it tries again elsewhere. */
    private static final long ANSWER_TIMEOUT_NANOS = 3_000_000_000L;

    private final SimCluster cluster;
    private final Simulator sim;
    private final int index;
    private int written;
    private @Nullable String current;
    private RequestId currentId = RequestId.NONE;
    /** Bumped with every attempt: an answer or a timeout of an earlier attempt is ignored (an OK still counts). */
    private int attempt;
    private int target;
    private boolean stopped;
    private Simulator.@Nullable Event timeout;
    /** The last answer that was not OK, for a failure's report (read only then: its JSON is not parsed per answer). */
    private @Nullable ResponseMessage lastRefusal;
    /** Level 3: the highest version this session saw, and its acknowledged writes with their versions. */
    private long floor;
    private final java.util.Map<String, Long> mine = new java.util.LinkedHashMap<>();

    SimClient(SimCluster cluster, int index) {
        this.cluster = cluster;
        this.sim = cluster.sim();
        this.index = index;
        this.target = index % cluster.options().replicas();
    }

    void begin() {
        later(sim.millisBetween(5, 60), this::next);
    }

    /** Starts no new write; one in flight is still retried until acknowledged. */
    void stop() {
        stopped = true;
    }

    /** Whether a write is in flight. */
    boolean busy() {
        return current != null;
    }

    private void next() {
        if (stopped) {
            return;
        }
        if (cluster.options().mode().levelThree() && sim.chance(0.3)) {
            read();
            return;
        }
        written++;
        current = "c" + index + "w" + written;
        currentId = new RequestId(index + 1L, written);
        send();
    }

    private void send() {
        if (current == null) {
            return; // acknowledged meanwhile, by an answer to an earlier attempt
        }
        int tried = ++attempt;
        String id = current;
        SimNode node = cluster.nodes().get(target);
        RequestMessage request = new RequestMessage(currentId.low(), SimNode.SERVICE, 0, "put", AccessMode.WRITE,
                10_000, 0, currentId, id.getBytes(StandardCharsets.UTF_8));
        cancelTimeout();
        timeout = sim.schedule(ANSWER_TIMEOUT_NANOS, -1, "client timeout", () -> {
            if (attempt == tried) {
                retry(null);
            }
        });
        if (!node.process().alive()) {
            later(sim.millisBetween(0.1, 2), () -> {  // connection refused
                if (attempt == tried) {
                    retry(null);
                }
            });
            return;
        }
        node.process().schedule(sim.millisBetween(0.05, 1.5), "client write",
                () -> node.replica().write(request, response -> later(sim.millisBetween(0.05, 1.5),
                        () -> answered(tried, id, response))));
    }

    /** A level-3 read at a random replica; the next operation follows it. */
    private void read() {
        SimNode node = cluster.nodes().get(sim.random().nextInt(cluster.nodes().size()));
        if (!node.process().running()) {
            later(sim.millisBetween(5, 60), this::next);
            return;
        }
        long wanted = floor;
        node.process().schedule(sim.millisBetween(0.05, 1.5), "client read", () -> node.replica()
                .awaitVersion(wanted, 1000).whenComplete((reached, e) -> {
                    if (Boolean.TRUE.equals(reached)) {
                        checkRead(node, wanted);
                    }
                    later(sim.millisBetween(5, 60), this::next);
                }));
    }

    private void checkRead(SimNode node, long wanted) {
        long version = node.replica().readVersion();
        if (version < wanted) {
            cluster.history().violation("a level-3 read at " + node.id() + " went back: version " + version
                    + " below the session's floor " + wanted);
        }
        for (java.util.Map.Entry<String, Long> write : mine.entrySet()) {
            if (write.getValue() <= wanted && !node.service().holds(write.getKey())) {
                cluster.history().violation("a level-3 read at " + node.id() + " at version " + version
                        + " misses the session's write " + write.getKey() + " acknowledged at " + write.getValue());
                return;
            }
        }
        floor = Math.max(floor, version);
    }

    private void answered(int tried, String id, ResponseMessage response) {
        // ALREADY_APPLIED: a retry of a write that ran, whose response is no longer kept; its version says where it
        // ran. The client's call ends there, as Neptune's does: the write counts as acknowledged at that version.
        if (response.status() == Status.OK || response.status() == Status.ALREADY_APPLIED) {
            cluster.answered(id, response);
            if (mine.putIfAbsent(id, response.version()) == null) {
                floor = Math.max(floor, response.version());
            }
            if (id.equals(current)) {
                cancelTimeout();
                current = null;
                attempt++;
                later(sim.millisBetween(5, 60), this::next);
            }
        } else if (tried == attempt) {
            lastRefusal = response;
            retry(response.status() == Status.NOT_PRIMARY ? response.suggestedPrimary() : null);
        }
    }

    /** Tries the current write again after a short wait: at {@code primary} if named, else at another node. */
    private void retry(@Nullable NodeId primary) {
        attempt++;
        target = primary != null ? SimNode.indexOf(primary) : sim.random().nextInt(cluster.options().replicas());
        later(sim.millisBetween(5, 100), this::send);
    }

    @Override
    public String toString() {
        return "c" + index + (current == null ? " idle" : " writing " + current + " (attempt " + attempt + " at n" + target
                + ", last refusal: " + refusal() + ")");
    }

    private String refusal() {
        return lastRefusal == null ? "" : lastRefusal.status() + " " + lastRefusal.errorMessage();
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    private void later(long delayNanos, Runnable action) {
        sim.schedule(delayNanos, -1, "client", action);
    }
}
