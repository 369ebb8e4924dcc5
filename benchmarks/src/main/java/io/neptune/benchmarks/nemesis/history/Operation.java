package io.neptune.benchmarks.nemesis.history;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * An invocation paired with its completion. An invocation that never completed (the history ended
 * first) has the outcome {@link OpType#INFO}: it may or may not have taken effect.
 *
 * @param invocation the {@link OpType#INVOKE} line
 * @param completion the completion line from the same process, or {@code null} if there was none
 */
public record Operation(Op invocation, @Nullable Op completion) {
    public Operation {
        requireNonNull(invocation, "invocation");
        if (!invocation.isInvoke()) {
            throw new IllegalArgumentException("invocation: " + invocation + " (expected: type invoke)");
        }
        if (completion != null && (completion.isInvoke() || completion.process() != invocation.process()
                || completion.f() != invocation.f() || !completion.key().equals(invocation.key()))) {
            throw new IllegalArgumentException("completion: " + completion + " (expected: the completion of "
                    + invocation + ")");
        }
    }

    /** How it ended: OK, FAIL, or INFO (also when it never completed). */
    public OpType outcome() {
        return completion == null ? OpType.INFO : completion.type();
    }

    /** Whether it completed OK. */
    public boolean isOk() {
        return outcome() == OpType.OK;
    }

    /** The invocation's index, which identifies the operation. */
    public long index() {
        return invocation.index();
    }

    public int process() {
        return invocation.process();
    }

    public OpFunction f() {
        return invocation.f();
    }

    public String key() {
        return invocation.key();
    }

    public int partition() {
        return invocation.partition();
    }

    /** When it was invoked, in nanoseconds since the run started. */
    public long invokeTime() {
        return invocation.time();
    }

    /** When it completed, or {@link Long#MAX_VALUE} if it never did. */
    public long completeTime() {
        return completion == null ? Long.MAX_VALUE : completion.time();
    }

    /** The element an append appends. */
    public long element() {
        Long element = invocation.element();
        if (element == null) {
            throw new IllegalStateException(invocation + " (expected: an append)");
        }
        return element;
    }

    /** The list an OK read returned. */
    public List<Long> list() {
        List<Long> list = completion == null ? null : completion.list();
        if (list == null) {
            throw new IllegalStateException(this + " (expected: a read that completed ok)");
        }
        return list;
    }

    /** The partition version the completion carried, or {@code null}. */
    public @Nullable Long version() {
        return completion == null ? null : completion.version();
    }

    /**
     * The session the guarantees of level 3 apply to: the named session, else the process (a process
     * is a session unless the history names sessions).
     */
    public String sessionKey() {
        String session = invocation.session();
        return session != null ? session : "p" + invocation.process();
    }

    /** The lines that make up this operation, for printing. */
    public List<Op> ops() {
        return completion == null ? List.of(invocation) : List.of(invocation, completion);
    }

    @Override
    public String toString() {
        return completion == null ? invocation + " (never completed)" : completion.toString()
                + " (invoked #" + invocation.index() + String.format(Locale.ROOT, " at %.3f s)",
                invocation.time() / 1e9);
    }
}
