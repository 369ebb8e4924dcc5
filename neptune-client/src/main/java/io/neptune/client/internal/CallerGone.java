package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The signal that the caller of the calls a node serves stopped waiting for them: their connection
 * closed, or the client cancelled the stream they belong to. The inner calls those calls have in flight
 * watch it and end when it comes ({@link InnerCalls}), and a call still queued is not run.
 *
 * <p>It travels with the calls it covers in their {@link Context} (the one a served call is queued and
 * run in, beside its trace), so a call routed on the node's own client to a partition it hosts carries
 * its caller's signal on.
 *
 * <p>Thread-safety: thread-safe; {@link #signal} runs the watchers on its caller's thread.
 */
public final class CallerGone {
    /** A caller that cannot go: a replicated write applied from the log, which nobody waits for. */
    public static final CallerGone NEVER = new CallerGone();

    private static final ContextKey<CallerGone> KEY = ContextKey.named("neptune-caller-gone");

    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private volatile @Nullable String reason;

    /** A caller that has not gone yet. */
    public CallerGone() {}

    /** The signal of the caller of the call being served in {@code context}; {@link #NEVER} if it has none. */
    public static CallerGone in(Context context) {
        CallerGone gone = context.get(KEY);
        return gone != null ? gone : NEVER;
    }

    /** {@code context} carrying this signal. */
    public Context into(Context context) {
        return context.with(KEY, this);
    }

    /** Why the caller went, or null while it waits. */
    public @Nullable String reason() {
        return reason;
    }

    /**
     * The caller went, for {@code why} ("its connection closed"): tells every watcher, once; later
     * signals change nothing.
     */
    public void signal(String why) {
        requireNonNull(why, "why");
        if (this == NEVER) {
            throw new IllegalStateException("a caller that cannot go went: " + why);
        }
        synchronized (this) {
            if (reason != null) {
                return;
            }
            reason = why;
        }
        for (Watch watch : watches) {
            watch.fire(why);
        }
        watches.clear();
    }

    /**
     * Tells {@code onGone} why the caller went, at most once, until the returned watch is closed; at once
     * if it went already.
     */
    Watch watch(Consumer<String> onGone) {
        Watch watch = new Watch(onGone);
        if (this == NEVER) {
            return watch;
        }
        watches.add(watch);
        String why = reason;
        if (why != null) {  // went while being watched: signal() may have missed this watch
            watches.remove(watch);
            watch.fire(why);
        }
        return watch;
    }

    /** One watcher of a {@link CallerGone}; closing it stops the watching. */
    final class Watch implements AutoCloseable {
        private final Consumer<String> onGone;
        private boolean fired;

        private Watch(Consumer<String> onGone) {
            this.onGone = requireNonNull(onGone, "onGone");
        }

        private void fire(String why) {
            synchronized (this) {
                if (fired) {
                    return;
                }
                fired = true;
            }
            onGone.accept(why);
        }

        @Override
        public void close() {
            watches.remove(this);
        }
    }
}
