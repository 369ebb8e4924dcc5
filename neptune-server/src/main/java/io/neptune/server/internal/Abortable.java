package io.neptune.server.internal;

/**
 * A hosted service instance whose running methods wait on something outside the JVM (a child
 * process). When its node starts closing, {@link ServiceRuntime} calls {@link #abort()} before it
 * waits for the running methods to return, so that they end at once instead of at their own
 * timeouts, and so that nothing the service started outlives the node.
 *
 * <p>Thread-safety: {@link #abort()} runs on the closing thread while workers may still run methods.
 */
public interface Abortable {
    /** Ends every running method's outside work and refuses new work; idempotent. */
    void abort();
}
