package io.neptune.server.internal.replication.protocol;

import io.neptune.core.internal.wire.ResponseMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A leader's writes waiting to commit, by LSN, each with the requests waiting for it: the write
 * itself and any retry of it that arrived while it was logged but not applied. Once a write
 * committed and was applied, each of its waiters is answered with {@link WriteDedup#committed}
 * (its response, addressed to that request, or ALREADY_APPLIED at its LSN); a leader that steps
 * down {@linkplain #abandon abandons} them all. Shared by both leaders: a {@code majority}-mode
 * primary ({@code QuorumLeader}) and a fail-stop primary ({@code PrimaryPipeline}).
 *
 * <p>Not thread-safe: confined to its leader's executor, like the leader.
 */
public final class CommitWaiters {
    /** The cached response of the write logged at an LSN, as the leader's response cache has it. */
    @FunctionalInterface
    public interface Responses {
        /** The cached response of the write at {@code lsn}, or null if none is cached (any more). */
        @Nullable ResponseMessage cachedAt(long lsn);
    }

    private final TreeMap<Long, List<Waiter>> waiting = new TreeMap<>();

    private record Waiter(long requestId, Consumer<ResponseMessage> reply) {}

    /** Adds the request with correlation id {@code requestId} as a waiter for the write at {@code lsn}. */
    public void add(long lsn, long requestId, Consumer<ResponseMessage> reply) {
        waiting.computeIfAbsent(lsn, k -> new ArrayList<>(1)).add(new Waiter(requestId, reply));
    }

    /** Whether no write has a waiter. */
    public boolean isEmpty() {
        return waiting.isEmpty();
    }

    /**
     * Answers the waiters of every write up to {@code applied}, in LSN order, each write's in the
     * order they came, with what {@code responses} has cached for it.
     */
    public void answerUpTo(long applied, Responses responses) {
        while (!waiting.isEmpty() && waiting.firstKey() <= applied) {
            Map.Entry<Long, List<Waiter>> first = waiting.pollFirstEntry();
            long lsn = first.getKey();
            answer(first.getValue(), responses.cachedAt(lsn), lsn);
        }
    }

    /** Answers the waiters of the write at {@code lsn}, which committed and was applied, with its {@code cached} response. */
    public void answer(long lsn, @Nullable ResponseMessage cached) {
        List<Waiter> waiters = waiting.remove(lsn);
        if (waiters != null) {
            answer(waiters, cached, lsn);
        }
    }

    private static void answer(List<Waiter> waiters, @Nullable ResponseMessage cached, long lsn) {
        for (Waiter w : waiters) {
            w.reply.accept(WriteDedup.committed(w.requestId, cached, lsn));
        }
    }

    /** Answers every waiter with {@code answer} (by request id), in LSN order, and forgets them. */
    public void abandon(LongFunction<ResponseMessage> answer) {
        for (List<Waiter> waiters : waiting.values()) {
            for (Waiter w : waiters) {
                w.reply.accept(answer.apply(w.requestId));
            }
        }
        waiting.clear();
    }

    /** Forgets every waiter without answering it. */
    public void clear() {
        waiting.clear();
    }
}
