package io.neptune.server;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/** A small service for cluster tests: echo, a sleeping read, a failing read, big and null answers, a counter write. */
@NeptuneService(name = "echo", partitions = 8)
public final class EchoTestService {
    /** An echo request. */
    public record Echo(String text) {}

    /** An echo reply naming the node and partition that served it. */
    public record Reply(String text, String node, int partition) {}

    /** Sleep for {@code millis}. */
    public record Sleep(long millis) {}

    private final AtomicLong writes = new AtomicLong();

    @Read
    public Reply echo(RequestContext context, Echo request) {
        return new Reply(request.text(), context.node().value(), context.partition());
    }

    @Read
    public Reply sleep(RequestContext context, Sleep request) throws InterruptedException {
        Thread.sleep(request.millis());
        return new Reply("slept", context.node().value(), context.partition());
    }

    @Read
    public Reply fail(RequestContext context, Echo request) {
        throw new IllegalStateException("failing on purpose: " + request.text());
    }

    /** Repeat {@code text} {@code times} times. */
    public record Repeat(String text, int times) {}

    @Read
    public Reply repeat(RequestContext context, Repeat request) {
        return new Reply(request.text().repeat(request.times()), context.node().value(), context.partition());
    }

    /** Fails the way a bug in a service does: with an {@link AssertionError}, not an exception. */
    @Read
    public Reply assertion(RequestContext context, Echo request) {
        throw new AssertionError("a bug: " + request.text());
    }

    /** Answers null, as a lookup that found nothing may. */
    @Read
    public @Nullable Reply nothing(RequestContext context, Echo request) {
        return null;
    }

    @Write
    public Long increment(RequestContext context, Echo request) {
        return writes.incrementAndGet();
    }
}
