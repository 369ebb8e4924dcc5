package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.PeerMessages.Batch;
import io.neptune.server.internal.replication.runtime.PeerMessages.Batched;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas' outgoing peer calls, over the node's own client connections: a message is written
 * as JSON under the reserved service {@value PeerMessages#SERVICE}, sent to the named node, and its
 * answer read back as the reply type (a non-OK status fails the call, naming it). The replicas of a
 * partition are read from the node's yellow page.
 *
 * <p>A call made with {@link #callBatched} (a heartbeat) waits in its connection's lane for
 * {@value #BATCH_DELAY_MILLIS} ms, so the heartbeats that one tick of many partitions sends a node
 * travel in one {@link PeerMessages.Batch} frame instead of one frame each. A lane is one of the
 * client's connections to a node (the partition picks it, as for every call), and a plain call
 * first sends what waits in its lane: a partition's calls still travel in order.
 *
 * <p>Thread-safety: thread-safe; {@link #connect} is called once, before the replicas start.
 */
final class ClientPeers implements Peers {
    /**
     * How long a lane's first batched call waits for others: a tick of a node's partitions runs in
     * pool tasks of 32 replicas each, a few milliseconds in all, and a heartbeat is due every 250 ms.
     */
    static final long BATCH_DELAY_MILLIS = 5;

    private static final Logger logger = LoggerFactory.getLogger(ClientPeers.class);

    private final NodeId self;
    private final YellowPage yellowPage;
    private final int timeoutMillis;
    /** Runs the tasks that drain the lanes, {@value #BATCH_DELAY_MILLIS} ms after a lane's first waiting call. */
    private final ScheduledExecutorService drainer;
    /** The client's connections per node: a partition's calls travel on connection {@code partition % lanesPerNode}. */
    private final int lanesPerNode;
    private final Map<LaneKey, Lane> lanes = new ConcurrentHashMap<>();
    private final Counter batches;
    private final Counter batchedMessages;
    private volatile @Nullable DefaultNeptuneClient client;
    private volatile Runnable announce = () -> { };

    /**
     * Peers of {@code self} as {@code yellowPage} lists them; a call times out after twice
     * {@code ackTimeout} (1 s at least). Batched calls are drained on {@code drainer}; the client
     * opens {@code connectionsPerNode} connections to a node. The batches sent are counted in {@code registry}.
     */
    ClientPeers(NodeId self, YellowPage yellowPage, Duration ackTimeout, ScheduledExecutorService drainer,
            int connectionsPerNode,
            MeterRegistry registry) {
        this.self = self;
        this.batches = Counter.builder("neptune.peer.batches").description("Frames sent to other nodes that carry the"
                + " heartbeats of several partitions").register(registry);
        this.batchedMessages = Counter.builder("neptune.peer.batched.messages").description("Heartbeats sent to other"
                + " nodes in batches (neptune.peer.batches) rather than one frame each").register(registry);
        this.yellowPage = yellowPage;
        this.timeoutMillis = (int) Math.max(1000, ackTimeout.toMillis() * 2);
        this.drainer = drainer;
        this.lanesPerNode = Math.max(1, connectionsPerNode);
    }

    /** Calls go through {@code client} from now on; {@link #announce()} runs {@code announce}. */
    void connect(DefaultNeptuneClient client, Runnable announce) {
        this.client = client;
        this.announce = announce;
    }

    @Override
    public NodeId self() {
        return self;
    }

    @Override
    public List<Replica> replicas(String service, int partition) {
        return yellowPage.replicas(service, partition);
    }

    @Override
    public <T> CompletableFuture<T> call(NodeId node, PeerRequest call, Class<T> replyType) {
        DefaultNeptuneClient c = client;
        if (c == null) {
            return notStarted();
        }
        Lane lane = lane(node, call.partition());
        synchronized (lane) {
            send(c, node, lane, lane.takeAll()); // what waits goes first: a partition's calls travel in order
            return single(c, node, call, replyType);
        }
    }

    @Override
    public <T> CompletableFuture<T> callBatched(NodeId node, PeerRequest call, Class<T> replyType) {
        if (!call.metadata().isEmpty()) {
            return call(node, call, replyType);   // a batch carries no metadata
        }
        if (client == null) {
            return notStarted();
        }
        Waiting<T> waiting = new Waiting<>(call, replyType);
        Lane lane = lane(node, call.partition());
        if (lane.add(waiting)) {
            try {
                drainer.schedule(() -> drain(node, lane), BATCH_DELAY_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {   // the node is closing
                drain(node, lane);
            }
        }
        return waiting.answer;
    }

    @Override
    public void announce() {
        announce.run();
    }

    /** Fails the calls still waiting in a lane: the node closes, and its drains will not run. */
    void close() {
        NeptuneException closed = new NeptuneException(self + ": replication closed");
        for (Lane lane : lanes.values()) {
            lane.takeAll().forEach(w -> w.answer.completeExceptionally(closed));
        }
    }

    private <T> CompletableFuture<T> notStarted() {
        return CompletableFuture.failedFuture(new NeptuneException(self + ": replication not started"));
    }

    private Lane lane(NodeId node, int partition) {
        return lanes.computeIfAbsent(new LaneKey(node, partition % lanesPerNode), key -> new Lane());
    }

    /** The task a lane's first waiting call queued: sends what waits in it now. */
    private void drain(NodeId node, Lane lane) {
        DefaultNeptuneClient c = requireNonNull(client, "client");
        synchronized (lane) {
            send(c, node, lane, lane.drained());
        }
    }

    /** Sends {@code waiting}, taken from {@code lane}, in order: in batches, or one by one if it is alone or the node takes no batch. */
    private void send(DefaultNeptuneClient c, NodeId node, Lane lane, List<Waiting<?>> waiting) {
        for (int from = 0; from < waiting.size(); from += PeerEndpoint.MAX_BATCH_ITEMS) {
            List<Waiting<?>> items = waiting.subList(from, Math.min(waiting.size(), from + PeerEndpoint.MAX_BATCH_ITEMS));
            if (items.size() == 1 || lane.unbatched) {
                items.forEach(w -> w.sendAlone(this, c, node));
            } else {
                sendBatch(c, node, lane, List.copyOf(items));
            }
        }
    }

    private <T> CompletableFuture<T> single(DefaultNeptuneClient c, NodeId node, PeerRequest call, Class<T> replyType) {
        byte[] payload;
        try {
            payload = Json.mapper().writeValueAsBytes(call.message());
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        RequestMessage request = new RequestMessage(0, PeerMessages.SERVICE, call.partition(), call.method(),
                AccessMode.WRITE, timeoutMillis, 0, RequestId.NONE, payload).withMetadata(call.metadata());
        return c.sendTo(node, request, call.partition()).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).thenApply(response -> {
            if (response.status() != Status.OK) {
                throw refusal(node, call.method(), response.status().name(), response.errorMessage());
            }
            try {
                return Json.mapper().readValue(response.payload(), replyType);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /**
     * Sends {@code items} in one {@link PeerMessages.Batch} and answers each from its item of the
     * reply. A node that refuses the batch as a whole (one from before batches) gets no other: the
     * items fail (their senders resend at the next heartbeat) and the lane sends one by one from now on.
     */
    private void sendBatch(DefaultNeptuneClient c, NodeId node, Lane lane, List<Waiting<?>> items) {
        byte[] payload;
        try {
            payload = Json.mapper().writeValueAsBytes(new Batch(items.stream().map(w -> new Batched(w.call.partition(),
                    w.call.method(), w.call.message())).toList()));
        } catch (IOException e) {
            items.forEach(w -> w.answer.completeExceptionally(e));
            return;
        }
        batches.increment();
        batchedMessages.increment(items.size());
        int partition = items.get(0).call.partition();   // every item's connection: they share a lane
        RequestMessage request = new RequestMessage(0, PeerMessages.SERVICE, partition, PeerEndpoint.BATCH,
                AccessMode.WRITE, timeoutMillis, 0, RequestId.NONE, payload);
        c.sendTo(node, request, partition).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS).whenComplete((response, e) -> {
            if (e != null) {
                items.forEach(w -> w.answer.completeExceptionally(e));
            } else if (response.status() != Status.OK) {
                if (!lane.unbatched) {
                    lane.unbatched = true;
                    logger.info("{}: {} answered a batch of heartbeats with {} ({}); sending them one by one", self, node,
                            response.status(), response.errorMessage());
                }
                NeptuneException refused = refusal(node, PeerEndpoint.BATCH, response.status().name(),
                        response.errorMessage());
                items.forEach(w -> w.answer.completeExceptionally(refused));
            } else {
                answerItems(node, items, response.payload());
            }
        });
    }

    /** Answers each of {@code items} from its answer in the batch reply {@code payload}. */
    private static void answerItems(NodeId node, List<Waiting<?>> items, byte[] payload) {
        JsonNode answers;
        try {
            answers = Json.mapper().readTree(payload).path("answers");
        } catch (IOException e) {
            items.forEach(w -> w.answer.completeExceptionally(e));
            return;
        }
        if (!answers.isArray() || answers.size() != items.size()) {
            NeptuneException wrong = new NeptuneException(node + " answered a batch of " + items.size() + " with "
                    + (answers.isArray() ? answers.size() + " answers" : "no answers"));
            items.forEach(w -> w.answer.completeExceptionally(wrong));
            return;
        }
        for (int i = 0; i < items.size(); i++) {
            items.get(i).answer(node, answers.get(i));
        }
    }

    private static NeptuneException refusal(NodeId node, String method, String status, @Nullable String reason) {
        return new NeptuneException(node + " answered " + method + " with " + status + ": " + reason);
    }

    /** A lane: one of the client's connections to a node. */
    private record LaneKey(NodeId node, int connection) {}

    /** The batched calls waiting for a lane's next drain. Guarded by itself. */
    private static final class Lane {
        private final List<Waiting<?>> waiting = new ArrayList<>();
        /** Whether a drain task is queued: the calls added meanwhile leave with it. */
        private boolean drainQueued;
        /** Whether the node refused a batch: it is sent one message at a time. */
        private volatile boolean unbatched;

        /** Adds {@code call}; true if the caller must queue a drain task. */
        synchronized boolean add(Waiting<?> call) {
            waiting.add(call);
            boolean first = !drainQueued;
            drainQueued = true;
            return first;
        }

        /** Takes what waits, for a plain call that goes after it; the queued drain finds the lane empty. */
        synchronized List<Waiting<?>> takeAll() {
            if (waiting.isEmpty()) {
                return List.of();
            }
            List<Waiting<?>> all = new ArrayList<>(waiting);
            waiting.clear();
            return all;
        }

        /** Takes what waits, for the queued drain task; the next batched call queues another. */
        synchronized List<Waiting<?>> drained() {
            drainQueued = false;
            return takeAll();
        }
    }

    /** A batched call waiting in its lane, and its answer. */
    private static final class Waiting<T> {
        private final PeerRequest call;
        private final Class<T> replyType;
        private final CompletableFuture<T> answer = new CompletableFuture<>();

        Waiting(PeerRequest call, Class<T> replyType) {
            this.call = call;
            this.replyType = replyType;
        }

        /** Sends this call as a message of its own; its answer completes this one's. */
        void sendAlone(ClientPeers peers, DefaultNeptuneClient c, NodeId node) {
            peers.single(c, node, call, replyType).whenComplete((reply, e) -> {
                if (e != null) {
                    answer.completeExceptionally(e);
                } else {
                    answer.complete(reply);
                }
            });
        }

        /** Completes the answer from this call's {@link PeerMessages.BatchAnswer} (as JSON) from {@code node}. */
        void answer(NodeId node, JsonNode item) {
            String status = item.path("status").asText();
            if (!status.equals(Status.OK.name())) {
                answer.completeExceptionally(refusal(node, call.method(), status, item.path("error").asText(null)));
                return;
            }
            try {
                answer.complete(Json.mapper().treeToValue(item.path("reply"), replyType));
            } catch (IOException | RuntimeException e) {
                answer.completeExceptionally(e);
            }
        }
    }
}
