package io.neptune.server.internal;

import io.neptune.core.MethodDescriptor;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import java.util.function.Consumer;

/**
 * A request waiting in a service queue.
 *
 * @param request the decoded request
 * @param method the resolved method
 * @param deadlineNanos {@link System#nanoTime()} after which the caller has given up
 * @param reply receives the response exactly once
 */
public record Task(RequestMessage request, MethodDescriptor method, long deadlineNanos,
        Consumer<ResponseMessage> reply) {}
