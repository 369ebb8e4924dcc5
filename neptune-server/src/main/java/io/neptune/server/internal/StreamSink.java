package io.neptune.server.internal;

import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * Where a stream method's worker hands its stream: the server side of one stream opened by a
 * client ({@code docs/protocols/wire.md}, "Streams"). Errors before the stream starts (not run,
 * method threw) go to the task's reply as an ordinary RESPONSE.
 */
public interface StreamSink {
    /**
     * The client's stream of a bidirectional stream method (items decoded as the method's input item
     * type): the method's argument.
     */
    Flow.Publisher<Object> input();

    /** The method returned {@code output}: subscribe to it and stream its items to the client. */
    void start(Flow.Publisher<?> output);

    /**
     * Tells {@code listener} how the stream ended, once: the status of its final RESPONSE ({@code OK},
     * {@code METHOD_FAILED}, {@code DEADLINE_EXCEEDED}, ...), {@code CANCELLED} when the client cancelled
     * it, or {@code CONNECTION_CLOSED}. Set before the stream is routed.
     */
    void whenEnded(Consumer<String> listener);
}
