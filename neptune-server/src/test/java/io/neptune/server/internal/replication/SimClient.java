package io.neptune.server.internal.replication;

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
 * with the same request id, elsewhere if told or if it waited in vain, until it is acknowledged. So
 * every write is attempted until it succeeds, and the retries test exactly-once.
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

    private void answered(int tried, String id, ResponseMessage response) {
        if (response.status() == Status.OK) {
            cluster.answered(id, response);
            if (id.equals(current)) {
                cancelTimeout();
                current = null;
                attempt++;
                later(sim.millisBetween(5, 60), this::next);
            }
        } else if (tried == attempt) {
            retry(response.status() == Status.NOT_PRIMARY ? response.suggestedPrimary() : null);
        }
    }

    /** Tries the current write again after a short wait: at {@code primary} if named, else at another node. */
    private void retry(@Nullable NodeId primary) {
        attempt++;
        target = primary != null ? SimNode.indexOf(primary) : sim.random().nextInt(cluster.options().replicas());
        later(sim.millisBetween(5, 100), this::send);
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
