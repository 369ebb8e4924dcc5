package io.neptune.core.internal;

import static java.util.Objects.requireNonNull;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An explicit lifecycle state machine for server-side components.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class Lifecycle {
    /** The states of a component. */
    public enum State {
        NEW, STARTING, RUNNING, STOPPING, STOPPED, FAILED;

        Set<State> allowedFrom() {
            return switch (this) {
                case NEW -> EnumSet.noneOf(State.class);
                case STARTING -> EnumSet.of(NEW);
                case RUNNING -> EnumSet.of(STARTING);
                case STOPPING -> EnumSet.of(STARTING, RUNNING, FAILED);
                case STOPPED -> EnumSet.of(NEW, STOPPING);
                case FAILED -> EnumSet.of(STARTING, RUNNING);
            };
        }
    }

    private final String owner;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

    /** Creates a lifecycle in {@link State#NEW}; {@code owner} names the component in errors. */
    public Lifecycle(String owner) {
        this.owner = owner;
    }

    /** The current state. */
    public State state() {
        return requireNonNull(state.get(), "state: starts NEW and every transition sets one");
    }

    /** Moves to {@code next}, or throws if the transition is not allowed. */
    public void transition(State next) {
        state.updateAndGet(current -> {
            if (!next.allowedFrom().contains(current)) {
                throw new IllegalStateException(owner + ": illegal transition " + current + " -> " + next);
            }
            return next;
        });
    }

    /** Moves to {@code next} if allowed; returns whether it did. Used by idempotent {@code close()}. */
    public boolean tryTransition(State next) {
        State current = state.get();
        while (next.allowedFrom().contains(current)) {
            if (state.compareAndSet(current, next)) {
                return true;
            }
            current = state.get();
        }
        return false;
    }
}
