package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.NeptuneException;
import io.neptune.core.ServiceCalls;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The inner calls of one call a node serves ({@link io.neptune.core.RequestContext#client()}), made
 * through the node's client: each takes the outer call's deadline less a margin, its service class,
 * one session for all of them, and for a write an id derived from the outer call's and the write's
 * rank ({@link RequestId#derived}). A blocking call to the outer call's own service is refused unless
 * its method is reentrant. When the outer call's caller goes ({@link CallerGone}: its connection closed,
 * or it cancelled the stream), the inner calls still in flight end: a call is abandoned (no attempt
 * follows; a write that may have been sent ends in {@link io.neptune.core.OutcomeUnknownException}), a
 * stream is cancelled on its node.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class InnerCalls implements ServiceCalls, Proxies.Calls {
    /**
     * The margin left to the outer method after an inner call's deadline, at most: time for it to
     * answer, and for its answer to reach the caller, before the caller gives up.
     */
    static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** An inner call takes at most this fraction of what is left as margin (1/10). */
    private static final int MARGIN_DIVISOR = 10;

    /**
     * What the inner calls inherit from the call being served.
     *
     * @param request the outer call: its service and method, service class, request id ({@link RequestId#NONE}
     *     for a read), and the version floor its caller's session asked of its partition
     * @param deadlineNanos the {@link System#nanoTime} by which the outer caller wants the answer, or
     *     {@link #NO_DEADLINE} (a replicated write applied from the log)
     * @param reentrant whether the method may wait for calls to its own service
     * @param caller the signal that the outer call's caller went ({@link CallerGone#NEVER}: it cannot)
     */
    public record Outer(RequestMessage request, long deadlineNanos, boolean reentrant, CallerGone caller) {
        /** The deadline of a call nobody waits for. */
        public static final long NO_DEADLINE = Long.MIN_VALUE;

        /** Validates the fields. */
        public Outer {
            requireNonNull(request, "request");
            requireNonNull(caller, "caller");
        }

        String service() {
            return request.service();
        }

        String serviceClass() {
            return request.serviceClass();
        }

        RequestId id() {
            return request.id();
        }

        String target() {
            return request.service() + "." + request.method();
        }
    }

    private final DefaultNeptuneClient client;
    private final Outer outer;
    private final NeptuneHandle session = NeptuneHandle.create();
    /** The inner writes started so far: the rank of the next one, less one. */
    private final AtomicInteger writes = new AtomicInteger();

    /**
     * The inner calls of {@code outer}, through the node's {@code client}. Their session starts at the
     * floor the outer caller's session asked of the outer partition, so an inner read of that partition,
     * on whichever replica, sees at least what the caller had seen there (level 3).
     */
    public InnerCalls(DefaultNeptuneClient client, Outer outer) {
        this.client = requireNonNull(client, "client");
        this.outer = requireNonNull(outer, "outer");
        session.observe(outer.request().service(), outer.request().partition(), outer.request().minVersion());
    }

    @Override
    public <T> CompletableFuture<T> callAsync(String service, int partition, String method, AccessMode mode,
            Object request, Class<T> responseType) {
        return invoke(service, partition, method, mode, request, responseType);
    }

    @Override
    public <T> T call(String service, int partition, String method, AccessMode mode, Object request,
            Class<T> responseType) {
        refuseBlocking(service);
        return await(callAsync(service, partition, method, mode, request, responseType));
    }

    @Override
    public <I> I proxy(Class<I> serviceInterface, String service) {
        requireNonNull(service, "service");
        return Proxies.create(this, serviceInterface, service);
    }

    @Override
    public int partitions(String service) {
        return client.partitions(service);
    }

    @Override
    public <T> CompletableFuture<T> invoke(String service, int partition, String method, AccessMode mode,
            Object request, Type responseType) {
        requireNonNull(mode, "mode");
        String target = service + "#" + partition + "." + method;
        String gone = outer.caller().reason();
        if (gone != null) {
            return CompletableFuture.failedFuture(dropped(target, "not sent", gone));
        }
        CallOptions.Builder options = options(target);
        if (options == null) {
            return CompletableFuture.failedFuture(expired(target));
        }
        if (mode == AccessMode.WRITE) {
            options.requestId(outer.id().derived(writes.incrementAndGet()).toString());
        }
        CompletableFuture<T> call = client.invoke(session, service, partition, method, mode, request, responseType,
                options.build());
        return outer.caller() == CallerGone.NEVER ? call : endedWhenTheCallerGoes(call);
    }

    @Override
    public <T> Flow.Publisher<T> stream(String service, int partition, String method, @Nullable Object request,
            Flow.@Nullable Publisher<?> input, Type itemType) {
        String target = service + "#" + partition + "." + method;
        String gone = outer.caller().reason();
        if (gone != null) {
            return DefaultNeptuneClient.failed(dropped(target, "not sent", gone));
        }
        CallOptions.Builder options = options(target);
        if (options == null) {
            return DefaultNeptuneClient.failed(expired(target));
        }
        Flow.Publisher<T> stream = client.stream(session, service, partition, method, request, input, itemType,
                options.build());
        if (stream instanceof ClientStream<T> opened) {
            opened.endWhen(outer.caller(), why -> dropped(target, "cancelled", why));
        }
        return stream;
    }

    /** {@code call}, abandoned if the outer call's caller goes before it ends. */
    private <T> CompletableFuture<T> endedWhenTheCallerGoes(CompletableFuture<T> call) {
        CallerGone.Watch watch = outer.caller().watch(why -> DefaultNeptuneClient.abandon(call,
                "the call it is part of, " + outer.target() + ", was dropped: " + why));
        call.whenComplete((answer, failure) -> watch.close());
        return call;
    }

    /**
     * Refuses to wait on an I/O thread; in a replicated write applied from the log, whose waiting would
     * hold its partition's log applier; and for a call to the outer method's own service unless that
     * method is reentrant: a worker waiting for another worker of its service can deadlock it.
     */
    @Override
    public void refuseBlocking(String service) {
        client.refuseBlockingOnIoThread();
        if (outer.deadlineNanos() == Outer.NO_DEADLINE) {
            throw new IllegalStateException("NEP-CALL-002 " + outer.target() + " made a blocking inner call to "
                    + service + " while applying a replicated write: the method runs on its partition's log"
                    + " applier, on every replica and again when a replica recovers, and waiting there stalls the"
                    + " partition's replication (and the partitions sharing its thread); use callAsync, whose"
                    + " writes every replica sends with the same derived request id so they run once, or make"
                    + " the call from a read or an unreplicated service");
        }
        if (service.equals(outer.service()) && !outer.reentrant()) {
            throw new IllegalStateException("NEP-CALL-001 " + outer.target() + " made a blocking inner call to its"
                    + " own service '" + service + "': it would hold a worker of " + service + " while it waits"
                    + " for another, and when every worker does that the service deadlocks; use callAsync, or"
                    + " declare the method reentrant (@Read(reentrant = true) or @Write(reentrant = true)) once"
                    + " the workers outnumber such calls in flight");
        }
    }

    @Override
    public <T> T await(CompletableFuture<T> future) {
        return client.await(future);
    }

    /**
     * The options of an inner call to {@code target} made now: the outer class and what is left of its
     * deadline less the margin; null if nothing is left.
     */
    private CallOptions.@Nullable Builder options(String target) {
        CallOptions.Builder options = CallOptions.builder();
        if (!outer.serviceClass().equals(ServiceClass.DEFAULT_NAME)) {
            options.serviceClass(outer.serviceClass());
        }
        if (outer.deadlineNanos() == Outer.NO_DEADLINE) {
            return options;
        }
        long left = outer.deadlineNanos() - System.nanoTime();
        long timeout = left - Math.min(MARGIN_NANOS, left / MARGIN_DIVISOR);
        if (timeout < TimeUnit.MILLISECONDS.toNanos(1)) {
            return null;
        }
        return options.timeout(Duration.ofNanos(timeout));
    }

    /** The failure of an inner call to {@code target} that {@code ended} ("not sent") as its caller went. */
    private NeptuneException dropped(String target, String ended, String why) {
        return new NeptuneException(target + ": " + ended + ", as the call it is part of, " + outer.target()
                + ", was dropped: " + why);
    }

    private DeadlineExceededException expired(String target) {
        return new DeadlineExceededException(target, Duration.ZERO, "the call it is part of, "
                + outer.target() + ", has no time left");
    }
}
