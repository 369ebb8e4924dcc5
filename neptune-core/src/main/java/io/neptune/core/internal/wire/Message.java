package io.neptune.core.internal.wire;

/**
 * A decoded TCP frame: a request or a response, matched by {@link #requestId()}, or a frame of a
 * stream opened by a request ({@code docs/protocols/wire.md}, "Streams").
 */
public sealed interface Message permits RequestMessage, ResponseMessage, StreamData, StreamCredit, StreamEnd,
        StreamCancel {
    /** Correlates a response with its request on one connection; 0 for connection-level errors. */
    long requestId();
}
