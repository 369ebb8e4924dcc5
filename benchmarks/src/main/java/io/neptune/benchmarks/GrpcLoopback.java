package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC-java server on 127.0.0.1 (port 0) hosting one service, and one channel to it, on gRPC's
 * shaded Netty transport and its shared event loops: the set-up every gRPC comparison of the
 * benchmarks shares ({@link GrpcEcho}, {@link GrpcStreams}). With {@code direct == false} both ends
 * keep gRPC's default executor for server handlers and client callbacks, which is what a user gets
 * out of the box; with {@code direct == true} both use {@code directExecutor()}, so handlers and
 * callbacks run on the event loops (gRPC's documented fast path for handlers that never block).
 *
 * <p>No protoc code generation: methods are described by a {@link MethodDescriptor} whose
 * marshaller ({@link #method}) passes {@code byte[]} through unchanged, so messages on the wire are
 * the application's bytes plus gRPC's HTTP/2 framing, headers and trailers.
 *
 * <p>Thread-safety: thread-safe; the channel carries any number of concurrent calls.
 */
final class GrpcLoopback implements AutoCloseable {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new BytesMarshaller();

    private final Server server;
    private final ManagedChannel channel;

    /** Starts a server hosting {@code service} and opens a channel to it. */
    GrpcLoopback(ServerServiceDefinition service, boolean direct) {
        requireNonNull(service, "service");
        NettyServerBuilder serverBuilder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(service);
        if (direct) {
            serverBuilder.directExecutor();
        }
        try {
            this.server = serverBuilder.build().start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the gRPC server of " + service.getServiceDescriptor()
                    .getName(), e);
        }
        NettyChannelBuilder channelBuilder = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext();
        if (direct) {
            channelBuilder.directExecutor();
        }
        this.channel = channelBuilder.build();
    }

    /** The method {@code service/method} of {@code type} whose messages are {@code byte[]} passed through unchanged. */
    static MethodDescriptor<byte[], byte[]> method(String service, String method, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, method))
                .setRequestMarshaller(BYTES)
                .setResponseMarshaller(BYTES)
                .build();
    }

    /** The channel to the server. */
    ManagedChannel channel() {
        return channel;
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
