package io.neptune.core.internal.wire;

/** A decoded TCP frame: a request or a response, matched by {@link #requestId()}. */
public sealed interface Message permits RequestMessage, ResponseMessage {
    /** Correlates a response with its request on one connection; 0 for connection-level errors. */
    long requestId();
}
