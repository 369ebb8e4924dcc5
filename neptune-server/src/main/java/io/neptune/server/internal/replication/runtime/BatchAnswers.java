package io.neptune.server.internal.replication.runtime;

import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.PeerMessages.BatchAnswer;
import io.neptune.server.internal.replication.runtime.PeerMessages.BatchReply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The answers to the items of one {@link PeerMessages.Batch}, which the replicas of its partitions
 * give on their own executors, in any order: the {@link BatchReply} goes out once every item is
 * answered, or after {@code waitMillis}, whichever comes first. An item not answered by then is
 * answered {@code UNAVAILABLE} (its sender treats it as a lost message and resends at its next
 * heartbeat), so one busy partition does not hold back the answers of the others: a primary counts
 * its majority from them.
 *
 * <p>Thread-safety: thread-safe; each item is answered at most once, and the reply is sent once.
 */
final class BatchAnswers {
    /** An item's answer: the replica's reply, or a refusal. */
    interface Answer {
        /** The replica answered with {@code reply}. */
        void ok(Object reply);

        /** The item is refused (or failed) with {@code status}, for {@code reason}. */
        void error(Status status, String reason);
    }

    private final AtomicReferenceArray<BatchAnswer> answers;
    private final AtomicInteger missing;
    private final AtomicBoolean sent = new AtomicBoolean();
    private final Consumer<BatchReply> reply;
    private final long waitMillis;
    private volatile @Nullable ScheduledFuture<?> expiry;

    /**
     * Collects {@code items} answers and hands the reply to {@code reply}, after all of them or after
     * {@code waitMillis} on {@code timer}; call {@link #start} once the items are handed out.
     */
    BatchAnswers(int items, long waitMillis, Consumer<BatchReply> reply) {
        this.answers = new AtomicReferenceArray<>(items);
        this.missing = new AtomicInteger(items);
        this.waitMillis = waitMillis;
        this.reply = reply;
    }

    /** Where item {@code index} is answered. */
    Answer item(int index) {
        return new Answer() {
            @Override
            public void ok(Object reply) {
                answer(index, new BatchAnswer(Status.OK.name(), reply, null));
            }

            @Override
            public void error(Status status, String reason) {
                answer(index, new BatchAnswer(status.name(), null, reason));
            }
        };
    }

    /** Starts the wait on {@code timer}: the reply goes out after {@code waitMillis} at the latest. */
    void start(ScheduledExecutorService timer) {
        if (missing.get() > 0) {
            expiry = timer.schedule(this::send, waitMillis, TimeUnit.MILLISECONDS);
        }
        if (sent.get()) {   // every item was answered while the wait was being scheduled
            cancelExpiry();
        }
    }

    private void answer(int index, BatchAnswer answer) {
        if (answers.compareAndSet(index, null, answer) && missing.decrementAndGet() == 0) {
            send();
        }
    }

    private void send() {
        if (!sent.compareAndSet(false, true)) {
            return;
        }
        cancelExpiry();
        List<BatchAnswer> all = new ArrayList<>(answers.length());
        for (int i = 0; i < answers.length(); i++) {
            BatchAnswer answer = answers.get(i);
            all.add(answer != null ? answer : new BatchAnswer(Status.UNAVAILABLE.name(), null,
                    "no answer within " + waitMillis + " ms (the partition's replica is busy)"));
        }
        reply.accept(new BatchReply(all));
    }

    private void cancelExpiry() {
        ScheduledFuture<?> e = expiry;
        if (e != null) {
            e.cancel(false);
        }
    }
}
