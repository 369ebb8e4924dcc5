package io.neptune.core;

/** Thrown when the service method itself threw on the replica that ran it. */
public final class RemoteMethodException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final NodeId node;
    private final String remoteMessage;

    /** Creates the exception for a failure of {@code target} on {@code node}. */
    public RemoteMethodException(String target, NodeId node, String remoteMessage) {
        super(target + " failed on " + node + ": " + remoteMessage);
        this.node = node;
        this.remoteMessage = remoteMessage;
    }

    /** The node whose method threw. */
    public NodeId node() {
        return node;
    }

    /** The exception class and message as thrown by the service method. */
    public String remoteMessage() {
        return remoteMessage;
    }
}
