package io.neptune.client.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/** Creates the Netty event loop groups of a node; one group serves its client and server. */
public final class EventLoops {
    private EventLoops() {}

    /** Creates a NIO group of {@code threads} daemon threads named after {@code owner}. */
    public static EventLoopGroup create(String owner, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("neptune-" + owner + "-io", true),
                NioIoHandler.newFactory());
    }

    /** What closes {@code group}, for a standalone client that owns its group: at once, waiting up to a second. */
    public static AutoCloseable shutdownOnClose(EventLoopGroup group) {
        return () -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The default I/O thread count: the number of cores, at least 2. */
    public static int defaultThreads() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }
}
