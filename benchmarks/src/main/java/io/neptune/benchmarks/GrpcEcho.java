package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;

/**
 * The alternative most users would pick for a unary call: a gRPC-java server on loopback whose one
 * method returns its request, and one channel to it ({@link GrpcLoopback}: with {@code direct ==
 * false} gRPC's default executors, with {@code direct == true} its direct-executor fast path). The
 * request on the wire is the same bytes the other echo floors send.
 *
 * <p>Thread-safety: thread-safe; {@link #echoAsync()} may have many calls outstanding.
 */
final class GrpcEcho implements AutoCloseable {
    private static final String SERVICE = "bench.Echo";
    private static final MethodDescriptor<byte[], byte[]> ECHO = GrpcLoopback.method(SERVICE, "Echo",
            MethodDescriptor.MethodType.UNARY);

    private final byte[] payload;
    private final GrpcLoopback grpc;

    GrpcEcho(byte[] payload, boolean direct) {
        this.payload = requireNonNull(payload, "payload").clone();
        this.grpc = new GrpcLoopback(ServerServiceDefinition.builder(SERVICE)
                .addMethod(ECHO, ServerCalls.asyncUnaryCall(GrpcEcho::echoBack))
                .build(), direct);
    }

    private static void echoBack(byte[] request, StreamObserver<byte[]> response) {
        response.onNext(request);
        response.onCompleted();
    }

    /** Sends the payload as one unary call; the future completes with the echoed byte count. */
    CompletableFuture<Integer> echoAsync() {
        CompletableFuture<Integer> reply = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(grpc.channel().newCall(ECHO, CallOptions.DEFAULT), payload, new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
                reply.complete(value.length);
            }

            @Override
            public void onError(Throwable t) {
                reply.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                if (!reply.isDone()) {
                    reply.completeExceptionally(new IllegalStateException("gRPC echo completed without a reply"));
                }
            }
        });
        return reply;
    }

    /** Closes the channel, then the server. */
    @Override
    public void close() {
        grpc.close();
    }
}
