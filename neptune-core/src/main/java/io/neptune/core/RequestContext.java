package io.neptune.core;

/**
 * What a service method knows about the call it serves.
 *
 * <p>Thread-safety: an instance belongs to one call and is used by one worker thread.
 */
public interface RequestContext {
    /** The service's name. */
    String service();

    /** The partition this call runs on. */
    int partition();

    /** The called method's name. */
    String method();

    /** Whether the call reads or writes. */
    AccessMode mode();

    /**
     * The log sequence number of this write, or 0 for reads and unreplicated writes. A partition's
     * writes run in increasing LSN order, but a number can be skipped: at level 1 a retried write that
     * two replicas both ran is logged twice and runs only at its first LSN, and at levels 2 and 3 in
     * {@link FailoverMode#MAJORITY} mode each new primary first logs a no-op, which runs nowhere.
     */
    long lsn();

    /** The node this call runs on. */
    NodeId node();

    /**
     * The service class the call belongs to ({@link ServiceClass#DEFAULT_NAME} when the caller named
     * none).
     */
    default String serviceClass() {
        return ServiceClass.DEFAULT_NAME;
    }

    /**
     * Reports what this call cost, in place of the worker thread's CPU time that the node's
     * scheduler measures by default: for a method whose work happens elsewhere (a disk, a child
     * process, a remote call) or that knows its cost better. The scheduler uses it to hold each
     * service class to its guaranteed share and to rank requests by cost. The last report wins.
     */
    default void reportResourceUse(java.time.Duration used) {}

    /**
     * How long the caller still waits for this call's answer, measured when asked: the call's
     * deadline, or its service class's if that is sooner; {@link java.time.Duration#ZERO} once it
     * passed. Work that can be cut short (a child process, a remote call) should end by then, since
     * nobody waits for its result afterwards. Empty when the call has no deadline, such as a
     * replicated write applied from the log.
     */
    default java.util.Optional<java.time.Duration> timeLeft() {
        return java.util.Optional.empty();
    }

    /**
     * Calls to other services (or other partitions of this one) as part of this call: they inherit
     * its deadline (less a margin), service class and session, and a write's request id derived from
     * this call's ({@link ServiceCalls} says how).
     *
     * @throws UnsupportedOperationException if this context belongs to no node (a test's own context)
     */
    default ServiceCalls client() {
        throw new UnsupportedOperationException("this RequestContext (" + getClass().getName()
                + ") belongs to no node, so it makes no inner calls; a node's contexts do");
    }
}
