package io.neptune.client.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A future that calls {@link #ended} once, however it ends: completed, failed, or cancelled by its
 * caller. A subclass rather than a callback on the future: the callback, its stage and its lambda were
 * about 100 bytes per call. {@link #ended} runs after the future's own dependents.
 *
 * <p>Thread-safety: thread-safe; {@link #ended} runs on whichever thread ended the future, once.
 */
abstract class EndingFuture<T> extends CompletableFuture<T> {
    /** The future ended, with {@code failure} or, for a value, null. */
    abstract void ended(@Nullable Throwable failure);

    @Override
    public boolean complete(T value) {
        boolean ended = super.complete(value);
        if (ended) {
            ended(null);
        }
        return ended;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        boolean ended = super.completeExceptionally(failure);
        if (ended) {
            ended(failure);
        }
        return ended;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean ended = super.cancel(mayInterruptIfRunning);
        if (ended) {
            ended(new CancellationException());
        }
        return ended;
    }
}
