package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The alternative most users would pick for a unary call: a gRPC-java server on loopback whose one
 * method returns its request, and one channel to it, on gRPC's shaded Netty transport and its
 * shared event loops. With {@code direct == false} both ends keep gRPC's default executor for
 * server handlers and client callbacks, which is what a user gets out of the box; with
 * {@code direct == true} both use {@code directExecutor()}, so handlers and callbacks run on the
 * event loops (gRPC's documented fast path for handlers that never block).
 *
 * <p>No protoc code generation: the method is described by a {@link MethodDescriptor} whose
 * marshaller passes {@code byte[]} through unchanged, so the request on the wire is the same bytes
 * the other echo floors send. gRPC still adds its HTTP/2 framing, headers and trailers.
 *
 * <p>Thread-safety: thread-safe; {@link #echoAsync()} may have many calls outstanding.
 */
final class GrpcEcho implements AutoCloseable {
    private static final String SERVICE = "bench.Echo";
    private static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Echo"))
            .setRequestMarshaller(new BytesMarshaller())
            .setResponseMarshaller(new BytesMarshaller())
            .build();

    private final byte[] payload;
    private final Server server;
    private final ManagedChannel channel;

    GrpcEcho(byte[] payload, boolean direct) {
        this.payload = requireNonNull(payload, "payload").clone();
        ServerServiceDefinition echo = ServerServiceDefinition.builder(SERVICE)
                .addMethod(ECHO, ServerCalls.asyncUnaryCall(GrpcEcho::echoBack))
                .build();
        NettyServerBuilder serverBuilder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(echo);
        if (direct) {
            serverBuilder.directExecutor();
        }
        try {
            this.server = serverBuilder.build().start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the gRPC echo server", e);
        }
        NettyChannelBuilder channelBuilder = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext();
        if (direct) {
            channelBuilder.directExecutor();
        }
        this.channel = channelBuilder.build();
    }

    private static void echoBack(byte[] request, StreamObserver<byte[]> response) {
        response.onNext(request);
        response.onCompleted();
    }

    /** Sends the payload as one unary call; the future completes with the echoed byte count. */
    CompletableFuture<Integer> echoAsync() {
        CompletableFuture<Integer> reply = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), payload, new StreamObserver<>() {
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

    /** Closes the channel, then the server, waiting up to a second for each. */
    @Override
    public void close() {
        try {
            channel.shutdownNow().awaitTermination(1, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Passes a message's bytes through unchanged. */
    private static final class BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read a gRPC message", e);
            }
        }
    }
}
