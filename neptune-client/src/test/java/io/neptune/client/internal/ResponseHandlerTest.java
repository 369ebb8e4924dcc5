package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.StreamCredit;
import io.neptune.core.internal.wire.WireFormat;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The in-flight calls of one client connection: registered as they are written, and forgotten
 * however they end, so that a caller's own timeout (replication's {@code orTimeout}) or cancel does
 * not leave its call, payload and all, in the map until the connection closes.
 */
class ResponseHandlerTest {
    private static final Replica REPLICA = new Replica(NodeId.of("server"), new InetSocketAddress("127.0.0.1", 1),
            new InetSocketAddress("127.0.0.1", 2), 0, ReplicaRole.SECONDARY, 0, 0);

    private final ResponseHandler handler = new ResponseHandler("server");
    private final EmbeddedChannel channel = new EmbeddedChannel(handler);

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private static PendingCall call(long id) {
        return new PendingCall(new RequestMessage(id, "svc", 0, "m", AccessMode.READ, 1000, 0, RequestId.NONE,
                new byte[0]), REPLICA);
    }

    @Test
    void aCallIsRegisteredAsItIsWrittenAndCompletedByItsResponse() {
        PendingCall call = call(5);
        call.accept(channel, null);

        assertThat(channel.<RequestMessage>readOutbound().requestId()).isEqualTo(5);
        assertThat(handler.inflightCount()).isEqualTo(1);

        channel.writeInbound(ResponseMessage.ok(5, 0, new byte[] {1}));

        assertThat(call.join().payload()).containsExactly(1);
        assertThat(handler.inflightCount()).isZero();
    }

    @Test
    void aCallTheCallerGaveUpOnIsForgotten() {
        PendingCall timedOut = call(7);
        PendingCall cancelled = call(8);
        timedOut.accept(channel, null);
        cancelled.accept(channel, null);
        assertThat(handler.inflightCount()).isEqualTo(2);

        timedOut.completeExceptionally(new TimeoutException()); // what orTimeout does
        cancelled.cancel(false);
        channel.runPendingTasks();

        assertThat(handler.inflightCount()).isZero();
        channel.writeInbound(ResponseMessage.ok(7, 0, new byte[0])); // a late answer finds nothing
        assertThat(handler.inflightCount()).isZero();
    }

    @Test
    void aCallThatEndedBeforeItsWriteIsNotKept() {
        PendingCall call = call(9);
        call.completeExceptionally(new TimeoutException());

        call.accept(channel, null);

        assertThat(handler.inflightCount()).isZero();
    }

    @Test
    void aCallWrittenAfterTheConnectionClosedFailsAsNotRun() {
        channel.close();
        PendingCall call = call(11);

        call.accept(channel, null);

        assertThat(call).isCompletedExceptionally();
        assertThat(call.handle((r, e) -> e).join()).isInstanceOf(CallFailure.class)
                .satisfies(e -> assertThat(((CallFailure) e).maybeExecuted()).isFalse());
    }
    /**
     * A stream's REQUEST with a trace context on a fresh connection asks the peer's wire version first
     * and keeps its metadata for a node of version 2; the stream's frames written meanwhile wait behind
     * it, so none overtakes it (a node drops the frames of a stream it does not know).
     */
    @Test
    void aStreamRequestWithMetadataWaitsForTheHelloAndItsFramesWaitBehindIt() {
        RequestMessage open = new RequestMessage(11, "svc", 0, "produce", AccessMode.READ, 1000, 0, RequestId.NONE,
                new byte[0], "default", RequestMessage.Streaming.OUTPUT)
                .withMetadata(Metadata.NONE.with("traceparent",
                        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
        channel.writeAndFlush(open);
        channel.writeAndFlush(new StreamCredit(11, 256));

        RequestMessage hello = channel.readOutbound();
        assertThat(hello.service()).isEqualTo(WireFormat.HELLO_SERVICE);
        assertThat(channel.<Object>readOutbound()).as("held behind the hello").isNull();

        channel.writeInbound(ResponseMessage.ok(ResponseHandler.HELLO_ID, WireFormat.VERSION_2, new byte[0]));

        RequestMessage sent = channel.readOutbound();
        assertThat(sent.requestId()).isEqualTo(11);
        assertThat(sent.metadata().get("traceparent")).isPresent();
        assertThat(channel.<Object>readOutbound()).isInstanceOf(StreamCredit.class);
    }
}
