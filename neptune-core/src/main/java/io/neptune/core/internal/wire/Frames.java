package io.neptune.core.internal.wire;

import io.netty.channel.ChannelPipeline;

/** Installs the frame and message codecs at the head of a TCP pipeline. */
public final class Frames {
    /** Pipeline name of the length-prefix frame decoder. */
    public static final String FRAME_DECODER = "frame-decoder";
    /** Pipeline name of the message decoder. */
    public static final String MESSAGE_DECODER = "message-decoder";
    /** Pipeline name of the message encoder. */
    public static final String MESSAGE_ENCODER = "message-encoder";

    private Frames() {}

    /**
     * Adds the codecs; frames longer than {@code maxFrameBytes} fail at once with a
     * {@link io.netty.handler.codec.TooLongFrameException} instead of being buffered, and input
     * that ends inside a frame fails with a {@link io.netty.handler.codec.CorruptedFrameException}.
     */
    public static void install(ChannelPipeline pipeline, int maxFrameBytes) {
        pipeline.addLast(FRAME_DECODER, new FrameDecoder(maxFrameBytes));
        pipeline.addLast(MESSAGE_DECODER, MessageDecoder.INSTANCE);
        pipeline.addLast(MESSAGE_ENCODER, MessageEncoder.INSTANCE);
    }
}
