package io.neptune.server.internal;

import java.util.concurrent.Flow;

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
}
