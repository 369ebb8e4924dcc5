package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Thrown when a write failed after one of its attempts reached a replica, or may have (the
 * connection broke after the request was sent, the primary stopped leading before the write
 * committed, the deadline passed while an attempt was out): the write may have run, may still
 * commit, or may never run. The client cannot tell which, so it says so instead of guessing.
 *
 * <p><b>Retrying is safe.</b> Every write carries a request id, drawn once and sent with each of
 * its attempts; a replica that logged the id answers a retry from its log instead of running the
 * write again, so the write runs at most once in all however often it is retried with the same id:
 * <pre>{@code
 * try {
 *     board.post(message);
 * } catch (OutcomeUnknownException e) {
 *     e.retryAsync().join();             // same method, request and request id
 * }
 * }</pre>
 * A retry that finds the write already applied but its response no longer kept fails with
 * {@link AlreadyAppliedException}, which means it ran exactly once. A process that restarts can
 * retry with the id it saved: {@code CallOptions.builder().requestId(e.requestId())} on the same
 * method, partition and request. Replicas remember the ids of each partition's last 100,000
 * writes (the nodes' {@code request-id-window}), across restarts, log checkpoints and snapshot installs (the ids are in the REDO log, kept
 * beside it when records are dropped, and carried by snapshots), so retry promptly: a retry after
 * that many newer writes may run the write a second time. {@link #getCause()} is the failure that left the outcome open.
 */
public final class OutcomeUnknownException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String target;
    private final String requestId;
    private final transient @Nullable Supplier<CompletableFuture<Object>> retry;

    /**
     * Creates the exception for the write to {@code target} ({@code service#partition.method}) with
     * request id {@code requestId}; {@code retry} sends it again with the same id.
     */
    public OutcomeUnknownException(String target, String requestId, String detail, @Nullable Throwable cause,
            @Nullable Supplier<CompletableFuture<Object>> retry) {
        super(target + ": the write may or may not have run (" + detail + "); retrying it with request id "
                + requestId + " runs it at most once", cause);
        this.target = requireNonNull(target, "target");
        this.requestId = requireNonNull(requestId, "requestId");
        this.retry = retry;
    }

    /** The write, as {@code service#partition.method}. */
    public String target() {
        return target;
    }

    /** The write's request id: 32 hex digits, for {@code CallOptions.Builder.requestId}. */
    public String requestId() {
        return requestId;
    }

    /**
     * Sends the same write again, with the same request id, through the client that made it, and
     * returns its response: the response of the write's only execution, whichever attempt ran it.
     *
     * @throws IllegalStateException if this exception was deserialized, or its client is gone
     */
    public CompletableFuture<Object> retryAsync() {
        if (retry == null) {
            throw new IllegalStateException(target + ": no client to retry through; call the method again with"
                    + " CallOptions.builder().requestId(\"" + requestId + "\")");
        }
        return retry.get();
    }
}
