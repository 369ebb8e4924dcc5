package io.neptune.server.internal;

import io.neptune.core.MethodDescriptor;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.opentelemetry.context.Context;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A request waiting in a service queue.
 *
 * @param request the decoded request; {@link RequestMessage#serviceClass()} is its class
 * @param method the resolved method
 * @param arrivalNanos {@link System#nanoTime()} when the node queued it: response times count from here
 * @param deadlineNanos {@link System#nanoTime()} after which the caller has given up
 * @param reply receives the response exactly once
 * @param handoff for a replicated write: what the worker does instead of running the method (hand it
 *     to the replication engine, which answers {@code reply} once it commits); null for other requests
 * @param stream for a request that opens a stream, where the method's stream goes; {@code reply} then
 *     only gets errors and is the stream's end. Null for other requests
 * @param context the context it was queued in: its server span, if traced, and the signal that its
 *     caller went ({@link io.neptune.client.internal.CallerGone}). Current on the worker while the method
 *     runs, so its inner calls are children of it and end when its caller goes
 */
public record Task(RequestMessage request, MethodDescriptor method, long arrivalNanos, long deadlineNanos,
        Consumer<ResponseMessage> reply, @Nullable Consumer<Task> handoff, @Nullable StreamSink stream,
        Context context) {

    /** A task queued in the current context. */
    public Task(RequestMessage request, MethodDescriptor method, long arrivalNanos, long deadlineNanos,
            Consumer<ResponseMessage> reply, @Nullable Consumer<Task> handoff, @Nullable StreamSink stream) {
        this(request, method, arrivalNanos, deadlineNanos, reply, handoff, stream, Context.current());
    }

    /** A replicated write handed off by the worker ({@code handoff}), or with a null handoff, a plain request. */
    public Task(RequestMessage request, MethodDescriptor method, long arrivalNanos, long deadlineNanos,
            Consumer<ResponseMessage> reply, @Nullable Consumer<Task> handoff) {
        this(request, method, arrivalNanos, deadlineNanos, reply, handoff, null);
    }

    /** A request a worker runs itself. */
    public Task(RequestMessage request, MethodDescriptor method, long arrivalNanos, long deadlineNanos,
            Consumer<ResponseMessage> reply) {
        this(request, method, arrivalNanos, deadlineNanos, reply, null, null);
    }
}
