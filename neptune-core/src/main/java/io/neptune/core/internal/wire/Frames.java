package io.neptune.core.internal.wire;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.time.Duration;

/** Installs the frame and message codecs at the head of a TCP pipeline. */
public final class Frames {
    /** Pipeline name of the length-prefix frame decoder. */
    public static final String FRAME_DECODER = "frame-decoder";
    /** Pipeline name of the message decoder. */
    public static final String MESSAGE_DECODER = "message-decoder";
    /** Pipeline name of the message encoder. */
    public static final String MESSAGE_ENCODER = "message-encoder";
    /** Pipeline name of the flush consolidation handler. */
    public static final String FLUSH_CONSOLIDATION = "flush-consolidation";
    /** Flushes asked for during one read burst beyond which one goes out anyway. */
    static final int FLUSHES_PER_READ = 256;

    private Frames() {}

    /**
     * Adds flush consolidation and the codecs. Flushes asked for while the channel reads (answers
     * written inline, calls sent from completions of earlier ones) go out once, at the end of the
     * read burst. Flushes of writes handed over from other threads (answers from a service's
     * workers, calls from callers' threads) go out in a task queued behind them on the event loop,
     * so the writes that queued up meanwhile leave in one system call: a fixed-node server wrote each
     * answer from a worker with a write call of its own, about a quarter of its I/O thread's time
     * (docs/PERFORMANCE.md). A lone write waits only for that task, on a thread that is already
     * awake.
     * Frames longer than {@code maxFrameBytes} fail at once with a
     * {@link io.netty.handler.codec.TooLongFrameException} instead of being buffered, and input
     * that ends inside a frame fails with a {@link io.netty.handler.codec.CorruptedFrameException}.
     */
    public static void install(ChannelPipeline pipeline, int maxFrameBytes) {
        install(pipeline, maxFrameBytes, Duration.ZERO);
    }

    /**
     * {@link #install(ChannelPipeline, int)}, and a frame whose first bytes arrived must be whole
     * within {@code frameTimeout} (zero: no limit), or a
     * {@link io.netty.handler.codec.CorruptedFrameException} names the stalled frame.
     */
    public static void install(ChannelPipeline pipeline, int maxFrameBytes, Duration frameTimeout) {
        if (frameTimeout.isNegative()) {
            throw new IllegalArgumentException("frameTimeout: " + frameTimeout + " (expected: >= 0)");
        }
        pipeline.addLast(FLUSH_CONSOLIDATION, new FlushConsolidationHandler(FLUSHES_PER_READ, true));
        pipeline.addLast(FRAME_DECODER, new FrameDecoder(maxFrameBytes, frameTimeout));
        pipeline.addLast(MESSAGE_DECODER, MessageDecoder.INSTANCE);
        pipeline.addLast(MESSAGE_ENCODER, MessageEncoder.INSTANCE);
    }
}
