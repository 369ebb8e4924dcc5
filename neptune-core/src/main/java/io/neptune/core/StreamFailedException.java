package io.neptune.core;

import static java.util.Objects.requireNonNull;

/**
 * Ends a stream ({@code NeptuneClient.openStream}) that failed after it was opened: the node or the
 * connection was lost, the deadline passed, the remote method or its publisher failed, or the server
 * ended the stream. Says how many items the subscriber received before, so that a caller can resume
 * where it stopped.
 */
public final class StreamFailedException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    /** Why a stream failed. */
    public enum Reason {
        /** The connection to the node broke (the node failed, or the network did). */
        CONNECTION_LOST,
        /** The call's deadline, which bounds the whole stream, passed. */
        DEADLINE_EXCEEDED,
        /** The remote method threw, or its publisher signalled an error. */
        REMOTE_ERROR,
        /** The server ended the stream (it is shutting down, for example). */
        CANCELLED_BY_SERVER,
        /** The peer broke the stream protocol (more items than its credit, or an undecodable item). */
        PROTOCOL_ERROR
    }

    private final String target;
    private final NodeId node;
    private final Reason reason;
    private final long itemsReceived;

    /** Creates the exception for the stream of {@code target} served by {@code node}. */
    public StreamFailedException(String target, NodeId node, Reason reason, long itemsReceived, String detail) {
        super("stream " + target + " from " + node + " failed after " + itemsReceived + " items ("
                + requireNonNull(reason, "reason") + "): " + detail);
        this.target = requireNonNull(target, "target");
        this.node = requireNonNull(node, "node");
        this.reason = reason;
        this.itemsReceived = itemsReceived;
    }

    /** The stream's method, as {@code service#partition.method}. */
    public String target() {
        return target;
    }

    /** The node that served the stream. */
    public NodeId node() {
        return node;
    }

    /** Why the stream failed. */
    public Reason reason() {
        return reason;
    }

    /** How many items the stream delivered before it failed (all of them were passed to the subscriber first). */
    public long itemsReceived() {
        return itemsReceived;
    }
}
