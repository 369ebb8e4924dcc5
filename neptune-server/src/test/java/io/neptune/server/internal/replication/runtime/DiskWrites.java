package io.neptune.server.internal.replication.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * A real REDO log's append inside a simulation: its writer thread is waited for at once, and the
 * outcome reaches the replica as an event, so that no writer thread completes a future the
 * simulation's replicas see.
 */
final class DiskWrites {
    private DiskWrites() {}

    /**
     * Waits for {@code written} and returns a future that completes the same way in the event
     * {@code schedule} runs.
     */
    static CompletableFuture<Void> settled(CompletableFuture<Void> written, Consumer<Runnable> schedule) {
        Throwable failure = null;
        try {
            written.join();
        } catch (CompletionException e) {
            failure = e.getCause();
        }
        CompletableFuture<Void> durable = new CompletableFuture<>();
        Throwable f = failure;
        schedule.accept(() -> {
            if (f == null) {
                durable.complete(null);
            } else {
                durable.completeExceptionally(f);
            }
        });
        return durable;
    }
}
