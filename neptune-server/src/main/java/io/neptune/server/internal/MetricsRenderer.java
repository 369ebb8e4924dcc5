package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Renders {@code /metrics} once for every request waiting, on a thread of its own: a request that
 * arrives while a render runs waits for the next one (so every answer was rendered after its
 * request arrived), which then answers all the requests that arrived meanwhile. However many
 * clients scrape at once, one render runs at a time, and the next starts no sooner than the last
 * one took after it ended: rendering takes at most half of one core, and the event loops, which
 * answer health probes, keep the rest.
 *
 * <p>Thread-safety: thread-safe.
 */
final class MetricsRenderer {
    private final Supplier<byte[]> render;
    private final ScheduledExecutorService executor;
    private final Object lock = new Object();

    /** Requests waiting for the next render (guarded by lock). */
    private List<CompletableFuture<byte[]>> waiting = new ArrayList<>();

    /** Whether a render runs or is scheduled (guarded by lock). */
    private boolean scheduled;

    /** Renders with {@code render} on {@code executor}, which should have one thread. */
    MetricsRenderer(Supplier<byte[]> render, ScheduledExecutorService executor) {
        this.render = requireNonNull(render, "render");
        this.executor = requireNonNull(executor, "executor");
    }

    /**
     * The text of a render that starts after this call; completed exceptionally with what the render
     * threw, or with a {@link RejectedExecutionException} once the executor is shut down. The
     * returned bytes are shared by every request of the render: they must not be changed.
     */
    CompletableFuture<byte[]> next() {
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        synchronized (lock) {
            waiting.add(answer);
            if (scheduled) {
                return answer;
            }
            scheduled = true;
        }
        schedule(0);
        return answer;
    }

    private void schedule(long delayNanos) {
        try {
            executor.schedule(this::renderWaiting, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) { // shut down: nothing renders any more
            List<CompletableFuture<byte[]>> batch;
            synchronized (lock) {
                batch = waiting;
                waiting = new ArrayList<>();
                scheduled = false;
            }
            batch.forEach(answer -> answer.completeExceptionally(e));
        }
    }

    private void renderWaiting() {
        List<CompletableFuture<byte[]>> batch;
        synchronized (lock) {
            batch = waiting;
            waiting = new ArrayList<>();
        }
        long start = System.nanoTime();
        try {
            byte[] text = render.get();
            batch.forEach(answer -> answer.complete(text));
        } catch (RuntimeException e) { // a meter that throws must not leave the requests unanswered
            batch.forEach(answer -> answer.completeExceptionally(e));
        }
        long took = System.nanoTime() - start;
        synchronized (lock) {
            if (waiting.isEmpty()) {
                scheduled = false;
                return;
            }
        }
        schedule(took);
    }
}
