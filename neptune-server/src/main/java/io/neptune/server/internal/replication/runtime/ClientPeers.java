package io.neptune.server.internal.replication.runtime;

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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The replicas' outgoing peer calls, over the node's own client connections: a message is written
 * as JSON under the reserved service {@value PeerMessages#SERVICE}, sent to the named node, and its
 * answer read back as the reply type (a non-OK status fails the call, naming it). The replicas of a
 * partition are read from the node's yellow page.
 *
 * <p>Thread-safety: thread-safe; {@link #connect} is called once, before the replicas start.
 */
final class ClientPeers implements Peers {
    private final NodeId self;
    private final YellowPage yellowPage;
    private final int timeoutMillis;
    private volatile @Nullable DefaultNeptuneClient client;
    private volatile Runnable announce = () -> { };

    /** Peers of {@code self} as {@code yellowPage} lists them; a call times out after twice {@code ackTimeout} (1 s at least). */
    ClientPeers(NodeId self, YellowPage yellowPage, Duration ackTimeout) {
        this.self = self;
        this.yellowPage = yellowPage;
        this.timeoutMillis = (int) Math.max(1000, ackTimeout.toMillis() * 2);
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
            return CompletableFuture.failedFuture(new NeptuneException(self + ": replication not started"));
        }
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
                throw new NeptuneException(node + " answered " + call.method() + " with " + response.status() + ": "
                        + response.errorMessage());
            }
            try {
                return Json.mapper().readValue(response.payload(), replyType);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Override
    public void announce() {
        announce.run();
    }
}
