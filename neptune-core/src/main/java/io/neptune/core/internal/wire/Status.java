package io.neptune.core.internal.wire;

/** The outcome of a request, as one byte on the wire. */
public enum Status {
    /** The method ran and returned a response. */
    OK(0, false),
    /** The method ran and threw; the payload names the exception. */
    METHOD_FAILED(1, false),
    /** No such service on this node's cluster. */
    UNKNOWN_SERVICE(2, false),
    /** The service has no such method, or its access mode differs. */
    UNKNOWN_METHOD(3, false),
    /** The partition id is out of range. */
    UNKNOWN_PARTITION(4, false),
    /** The partition exists but this node does not host it; another replica may. */
    NOT_HOSTED(5, true),
    /** The service's queue is full; the method did not run. */
    OVERLOADED(6, true),
    /** The request's deadline passed while it was queued; the method did not run. */
    DEADLINE_EXCEEDED(7, false),
    /** The request could not be decoded; the method did not run. */
    INVALID_REQUEST(8, false),
    /** The frame was malformed; the connection is closed after this response. */
    PROTOCOL_ERROR(9, false),
    /** The node is shutting down; the method did not run. */
    UNAVAILABLE(10, true),
    /** A write reached a replica that is not the partition's primary; the payload names the primary if known. */
    NOT_PRIMARY(11, true),
    /** A read asked for a version this replica has not reached in time; the primary has it. */
    STALE(12, true),
    /** A retried write was already applied but its response is no longer kept; the version says where. */
    ALREADY_APPLIED(13, false),
    /** A majority-mode primary cannot hear from a majority of the replicas; the write did not run. */
    NO_MAJORITY(14, true),
    /**
     * The replica took the write but stopped before it committed (it stopped being the primary, or is
     * shutting down): it may still commit, or never; a retry with the same request id runs it at most once.
     */
    IN_DOUBT(15, false),
    /**
     * The node's scheduler dropped the request from its queue: its expected yield had fallen to about
     * zero (it would finish after its class's deadline). The method did not run; another replica
     * would not answer in time either.
     */
    DROPPED(16, false),
    /** The request names a service class the node does not declare; the method did not run. */
    UNKNOWN_CLASS(17, false),
    /**
     * The caller's identity may not do what the request asks (a client sending peer messages, say);
     * nothing ran. Only nodes that run with TLS answer it.
     */
    PERMISSION_DENIED(18, false);

    private static final Status[] BY_CODE = new Status[19];

    static {
        for (Status status : values()) {
            BY_CODE[status.code] = status;
        }
    }

    private final byte code;
    private final boolean retryElsewhere;

    Status(int code, boolean retryElsewhere) {
        this.code = (byte) code;
        this.retryElsewhere = retryElsewhere;
    }

    /** The wire code. */
    public byte code() {
        return code;
    }

    /** Whether the method certainly did not run and another replica may serve the call. */
    public boolean retryElsewhere() {
        return retryElsewhere;
    }

    /** Returns the status with {@code code}, or {@code null} if unknown. */
    public static @org.jspecify.annotations.Nullable Status of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
