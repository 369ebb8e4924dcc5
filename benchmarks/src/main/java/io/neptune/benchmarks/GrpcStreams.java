package io.neptune.benchmarks;

import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

/**
 * gRPC-java server streaming on loopback ({@link GrpcLoopback}): one server-streaming method that
 * answers a {@link StreamBurst} with its items, sent while the call is ready (gRPC's documented
 * flow-control pattern: {@code isReady()} and the on-ready handler, so a slow reader bounds the
 * sender as Neptune's credit does).
 *
 * <p>Thread-safety: thread-safe; any number of streams may be open at once.
 */
final class GrpcStreams implements AutoCloseable {
    private static final String SERVICE = "bench.Streams";
    private static final MethodDescriptor<byte[], byte[]> STREAM = GrpcLoopback.method(SERVICE, "Stream",
            MethodDescriptor.MethodType.SERVER_STREAMING);

    private final GrpcLoopback grpc;

    /** Starts the server and a channel to it; {@code direct} as in {@link GrpcLoopback}. */
    GrpcStreams(boolean direct) {
        this.grpc = new GrpcLoopback(ServerServiceDefinition.builder(SERVICE)
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall(GrpcStreams::stream))
                .build(), direct);
    }

    /** Opens a stream of {@code burst}; {@code tally} receives its items. */
    void open(StreamBurst burst, StreamTally tally) {
        ClientCalls.asyncServerStreamingCall(grpc.channel().newCall(STREAM, CallOptions.DEFAULT), burst.encode(),
                tally);
    }

    private static void stream(byte[] request, StreamObserver<byte[]> response) {
        new Sender(StreamBurst.decode(request), (ServerCallStreamObserver<byte[]>) response).start();
    }

    /** Closes the channel, then the server. */
    @Override
    public void close() {
        grpc.close();
    }

    /** Sends one stream's items while its call is ready; gRPC serializes the handler's callbacks. */
    private static final class Sender {
        private final byte[] payload;
        private final ServerCallStreamObserver<byte[]> out;
        private int remaining;
        private boolean ended;

        Sender(StreamBurst burst, ServerCallStreamObserver<byte[]> out) {
            this.payload = burst.payload();
            this.remaining = burst.items();
            this.out = out;
        }

        void start() {
            out.setOnCancelHandler(() -> ended = true);
            out.setOnReadyHandler(this::sendWhileReady);
        }

        private void sendWhileReady() {
            while (!ended && remaining > 0 && out.isReady()) {
                out.onNext(payload);
                remaining--;
            }
            if (!ended && remaining == 0) {
                ended = true;
                out.onCompleted();
            }
        }
    }
}
