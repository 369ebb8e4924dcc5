package io.neptune.server.internal;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The replicated writes a service's runtime accepted and has not answered yet: they run on the
 * replication engine, not on the service's workers, yet count in its load index and against its
 * {@code queue-capacity}, and (with service classes) against their class until they commit, charged
 * the CPU time applying such a write took here lately.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ReplicatedWrites {
    private final NodeId node;
    private final String service;
    private final int capacity;
    private final Scheduler scheduler;
    private final AtomicInteger inProgress = new AtomicInteger();
    /** Per write method, the decaying mean CPU time of applying it here (only kept by a class-aware node). */
    private final Map<String, AtomicLong> costs = new ConcurrentHashMap<>();

    /** Writes of {@code service} on {@code node}, at most {@code capacity} at once, told to {@code scheduler} once answered. */
    ReplicatedWrites(NodeId node, String service, int capacity, Scheduler scheduler) {
        this.node = node;
        this.service = service;
        this.capacity = capacity;
        this.scheduler = scheduler;
    }

    /** Replicated writes accepted here and not answered yet. */
    int inProgress() {
        return inProgress.get();
    }

    /**
     * Counts a write in, unless {@code capacity} of them are already in progress here: then it
     * answers OVERLOADED and returns null. Otherwise returns the reply to use, which counts the write
     * out when it is answered.
     */
    @Nullable Consumer<ResponseMessage> admit(RequestMessage request, Consumer<ResponseMessage> reply) {
        if (inProgress.incrementAndGet() > capacity) {
            inProgress.decrementAndGet();
            reply.accept(ResponseMessage.error(request.requestId(), Status.OVERLOADED, service + " has "
                    + capacity + " replicated writes in progress on " + node));
            return null;
        }
        AtomicBoolean answered = new AtomicBoolean();
        return response -> {
            if (answered.compareAndSet(false, true)) {
                inProgress.decrementAndGet();
            }
            reply.accept(response);
        };
    }

    /**
     * Hands {@code task}, a write the class-aware scheduler admitted now, to {@code engine} (unless
     * {@code capacity} writes are in progress), and tells the scheduler how it ended once answered:
     * refused OVERLOADED before it reached the engine, committed, or failed.
     */
    void handOver(Task task, Consumer<ResponseMessage> reply,
            BiConsumer<RequestMessage, Consumer<ResponseMessage>> engine) {
        long started = System.nanoTime();
        AtomicBoolean handedOver = new AtomicBoolean();
        AtomicBoolean counted = new AtomicBoolean();
        Consumer<ResponseMessage> admitted = admit(task.request(), response -> {
            if (counted.compareAndSet(false, true)) {
                answered(task, started, handedOver.get(), response);
            }
            reply.accept(response);
        });
        if (admitted != null) {
            handedOver.set(true);
            engine.accept(task.request(), admitted);
        }
    }

    private void answered(Task task, long started, boolean handedOver, ResponseMessage response) {
        if (!handedOver) {
            scheduler.refused(task);
        } else if (response.status() == Status.OK) {
            scheduler.completed(task, started, System.nanoTime(), cost(task.method().name()));
        } else {
            scheduler.failed(task, started, System.nanoTime(), cost(task.method().name()));
        }
    }

    /**
     * The CPU time applying one write of {@code method} took lately (a decaying mean over this node's
     * applies): what a replicated write is charged to its class, since it runs on the replication
     * threads, not on the worker that admitted it.
     */
    private long cost(String method) {
        AtomicLong cost = costs.get(method);
        return cost == null ? 0 : cost.get();
    }

    /** Applying a write of {@code method} here took {@code nanos} of CPU time. */
    void applied(String method, long nanos) {
        AtomicLong cost = costs.computeIfAbsent(method, m -> new AtomicLong(nanos));
        cost.getAndUpdate(old -> old + (nanos - old) / 8);
    }
}
