package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A few TCP connections per node, opened lazily and shared by all calls; requests are multiplexed
 * over them by request id. Failed connects are reported to the yellow page, which excludes a node
 * after three in a row.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ConnectionPool implements AutoCloseable {
    private final Connector connector;
    private final YellowPage yellowPage;
    private final int connectionsPerNode;
    private final AtomicLong requestIds = new AtomicLong();
    private final Map<NodeId, Slots> nodes = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ConnectionPool(Connector connector, YellowPage yellowPage, int connectionsPerNode) {
        this.connector = requireNonNull(connector, "connector");
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
        this.connectionsPerNode = connectionsPerNode;
    }

    /**
     * Sends {@code request} to {@code replica}'s node with a fresh request id and {@code timeoutMillis}
     * left (the one copy of the request an attempt makes).
     */
    CompletableFuture<ResponseMessage> send(Replica replica, RequestMessage request, int timeoutMillis) {
        return send(replica, request, timeoutMillis, -1);
    }

    /**
     * Sends {@code request} to {@code replica}'s node; requests with the same non-negative
     * {@code affinity} share one connection, so they arrive in the order they were sent.
     */
    CompletableFuture<ResponseMessage> sendOrdered(Replica replica, RequestMessage request, int affinity) {
        return send(replica, request, request.timeoutMillis(), affinity);
    }

    private CompletableFuture<ResponseMessage> send(Replica replica, RequestMessage request, int timeoutMillis,
            int affinity) {
        PendingCall call = new PendingCall(request.withRequestId(requestIds.incrementAndGet(), timeoutMillis), replica);
        if (closed) {
            call.completeExceptionally(new CallFailure("client is closed", false));
            return call;
        }
        Slots slots = slots(replica.node());
        Slot slot = affinity < 0 ? slots.next() : slots.slots[affinity % slots.slots.length];
        slot.withChannel(replica, call); // the connection's ResponseHandler registers the call as it is written
        return call;
    }

    private Slots slots(NodeId node) {
        Slots slots = nodes.get(node);
        return slots != null ? slots : nodes.computeIfAbsent(node, n -> new Slots(connectionsPerNode));
    }

    /**
     * Opens {@code stream} on a connection to {@code replica}'s node: registers it under a fresh
     * request id and writes {@code request} (the stream's REQUEST) with that id.
     */
    void openStream(Replica replica, RequestMessage request, ClientStream<?> stream) {
        if (closed) {
            stream.openFailed(new CallFailure("client is closed", false));
            return;
        }
        slots(replica.node()).next().withChannel(replica, (channel, connectError) -> {
            if (connectError != null) {
                stream.openFailed(connectError);
                return;
            }
            ResponseHandler handler = channel.pipeline().get(ResponseHandler.class);
            long id = requestIds.incrementAndGet();
            if (handler == null || !handler.registerStream(id, stream)) {
                stream.openFailed(new CallFailure("connection to " + replica + " closed", false));
                return;
            }
            if (!stream.attach(channel, handler, id)) {
                handler.removeStream(id); // cancelled while connecting: never sent
                return;
            }
            channel.writeAndFlush(request.withRequestId(id, request.timeoutMillis())).addListener(f -> {
                if (!f.isSuccess()) {
                    stream.connectionLost(channel, "cannot send to " + replica + ": " + f.cause().getMessage());
                }
            });
            stream.requestSent();
        });
    }

    /** Requests in flight over all connections; for tests and metrics. */
    int inflight() {
        int total = 0;
        for (Slots slots : nodes.values()) {
            for (Slot slot : slots.slots) {
                Channel channel = slot.current;
                ResponseHandler handler = channel == null ? null : channel.pipeline().get(ResponseHandler.class);
                total += handler == null ? 0 : handler.inflightCount();
            }
        }
        return total;
    }

    @Override
    public void close() {
        closed = true;
        for (Slots slots : nodes.values()) {
            for (Slot slot : slots.slots) {
                slot.close();
            }
        }
        nodes.clear();
    }

    private final class Slots {
        final Slot[] slots;
        final AtomicInteger next = new AtomicInteger();

        Slots(int size) {
            slots = new Slot[size];
            for (int i = 0; i < size; i++) {
                slots[i] = new Slot();
            }
        }

        /**
         * The connection a call goes out on: the one owned by the calling thread's event loop if there is
         * one (a call made from an answer's callback, as a closed loop of calls does: written inline, with
         * no other thread to wake), else the next in turn.
         */
        Slot next() {
            for (Slot slot : slots) {
                Channel channel = slot.current;
                if (channel != null && channel.isActive() && channel.eventLoop().inEventLoop()) {
                    return slot;
                }
            }
            return slots[Math.floorMod(next.getAndIncrement(), slots.length)];
        }
    }

    /** One connection, reopened on demand after it closes. */
    private final class Slot {
        private final Object lock = new Object();
        private volatile @Nullable Channel current;
        /** While connecting, the sends waiting for the connection, in the order they came. */
        private @Nullable List<BiConsumer<@Nullable Channel, @Nullable Throwable>> waiting;

        /**
         * Runs {@code action} with the open connection, or with the reason there is none; actions
         * that wait for one connection attempt run in the order they came, so their writes do too.
         */
        void withChannel(Replica replica, BiConsumer<@Nullable Channel, @Nullable Throwable> action) {
            Channel channel = current;
            if (channel == null || !channel.isActive()) {
                synchronized (lock) {
                    channel = current;
                    if (channel == null || !channel.isActive()) {
                        if (waiting != null) {
                            waiting.add(action);
                        } else {
                            waiting = new ArrayList<>();
                            waiting.add(action); // before connecting: a connect that fails at once answers it there
                            connect(replica);
                        }
                        return;
                    }
                }
            }
            action.accept(channel, null);
        }

        private void connect(Replica replica) {
            connector.connect(replica).addListener((ChannelFuture f) -> {
                List<BiConsumer<@Nullable Channel, @Nullable Throwable>> waiters;
                synchronized (lock) {
                    waiters = waiting;
                    waiting = null;
                    if (f.isSuccess()) {
                        current = f.channel();
                    }
                }
                Channel channel = null;
                Throwable failure = null;
                if (f.isSuccess()) {
                    yellowPage.connectSucceeded(replica.node());
                    if (closed) {
                        f.channel().close();
                        failure = new CallFailure("client is closed", false);
                    } else {
                        channel = f.channel();
                    }
                } else {
                    yellowPage.connectFailed(replica.node());
                    failure = new CallFailure("cannot connect to " + replica + ": " + f.cause().getMessage(), false,
                            f.cause());
                }
                for (BiConsumer<@Nullable Channel, @Nullable Throwable> waiter : requireNonNull(waiters, "waiters")) {
                    waiter.accept(channel, failure);
                }
            });
        }

        void close() {
            Channel channel = current;
            if (channel != null) {
                channel.close();
            }
        }
    }
}
