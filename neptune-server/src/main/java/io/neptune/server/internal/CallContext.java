package io.neptune.server.internal;

import io.neptune.client.internal.CallerGone;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.InnerCalls;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceCalls;
import io.neptune.core.internal.wire.RequestMessage;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RequestContext} of one call a {@link ServiceRuntime} serves: what the method knows of
 * the call, the cost it reports, and its inner calls, made on first use.
 *
 * <p>Thread-safety: used by the thread that runs the method; {@link #client()} may be shared with
 * the threads the method hands work to.
 */
final class CallContext implements RequestContext {
    /** The deadline of a call nobody waits for (a replicated write applied from the log). */
    static final long NO_DEADLINE = InnerCalls.Outer.NO_DEADLINE;

    private final NodeId node;
    private final RequestMessage request;
    private final long lsn;
    /** The {@link System#nanoTime} by which the caller wants the answer, or {@link #NO_DEADLINE}. */
    private final long deadlineNanos;
    private final boolean reentrant;
    private final @Nullable DefaultNeptuneClient nodeClient;
    private final CallerGone caller;
    /** What the method reported it cost, or -1. */
    private volatile long reportedNanos = -1;
    private volatile @Nullable InnerCalls innerCalls;

    /**
     * The context of {@code request} on {@code node}, logged at {@code lsn} (0: not a replicated write);
     * its method {@code reentrant} or not; inner calls through {@code nodeClient} (null: not started), which
     * end when {@code caller} goes.
     */
    CallContext(NodeId node, RequestMessage request, long lsn, long deadlineNanos, boolean reentrant,
            @Nullable DefaultNeptuneClient nodeClient, CallerGone caller) {
        this.node = node;
        this.request = request;
        this.lsn = lsn;
        this.deadlineNanos = deadlineNanos;
        this.reentrant = reentrant;
        this.nodeClient = nodeClient;
        this.caller = caller;
    }

    /** What the method reported the call cost, or -1 if it did not. */
    long reportedNanos() {
        return reportedNanos;
    }

    @Override
    public Optional<Duration> timeLeft() {
        if (deadlineNanos == NO_DEADLINE) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())));
    }

    @Override
    public ServiceCalls client() {
        InnerCalls calls = innerCalls;
        if (calls == null) {
            DefaultNeptuneClient through = nodeClient;
            if (through == null) {
                throw new IllegalStateException(node + " has not started its client yet, so " + request.target()
                        + " cannot make inner calls; a service may call others once its node has started");
            }
            synchronized (this) {
                calls = innerCalls;
                if (calls == null) {
                    calls = new InnerCalls(through, new InnerCalls.Outer(request, deadlineNanos, reentrant, caller));
                    innerCalls = calls;
                }
            }
        }
        return calls;
    }

    @Override
    public String service() {
        return request.service();
    }

    @Override
    public int partition() {
        return request.partition();
    }

    @Override
    public String method() {
        return request.method();
    }

    @Override
    public AccessMode mode() {
        return request.mode();
    }

    @Override
    public long lsn() {
        return lsn;
    }

    @Override
    public NodeId node() {
        return node;
    }

    @Override
    public String serviceClass() {
        return request.serviceClass();
    }

    @Override
    public void reportResourceUse(Duration used) {
        reportedNanos = Math.max(0, used.toNanos());
    }
}
