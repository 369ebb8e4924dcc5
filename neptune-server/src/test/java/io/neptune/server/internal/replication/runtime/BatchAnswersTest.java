package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.PeerMessages.BatchAnswer;
import io.neptune.server.internal.replication.runtime.PeerMessages.BatchReply;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BatchAnswersTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<BatchReply> replies = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void theReplyGoesOutOnceEveryItemIsAnsweredInTheItemsOrder() {
        BatchAnswers answers = new BatchAnswers(3, 60_000, replies::add);
        answers.item(2).ok("third");
        answers.item(0).ok("first");
        answers.start(timer);
        assertThat(replies).isEmpty();
        answers.item(1).error(Status.NOT_HOSTED, "node-1 has no replica of kv#1");

        assertThat(replies).containsExactly(new BatchReply(List.of(new BatchAnswer("OK", "first", null),
                new BatchAnswer("NOT_HOSTED", null, "node-1 has no replica of kv#1"), new BatchAnswer("OK", "third", null))));
    }

    @Test
    void anItemNotAnsweredInTimeIsUnavailableAndItsLateAnswerIsDropped() {
        BatchAnswers answers = new BatchAnswers(2, 50, replies::add);
        answers.item(0).ok("heard");
        answers.start(timer);

        await().atMost(Duration.ofSeconds(10)).until(() -> !replies.isEmpty());
        answers.item(1).ok("late");
        answers.item(0).ok("twice");

        assertThat(replies).hasSize(1);
        assertThat(replies.get(0).answers()).containsExactly(new BatchAnswer("OK", "heard", null),
                new BatchAnswer("UNAVAILABLE", null, "no answer within 50 ms (the partition's replica is busy)"));
    }

    @Test
    void aBatchAnsweredBeforeItsWaitStartsLeavesNoWaitBehind() throws Exception {
        BatchAnswers answers = new BatchAnswers(1, 60_000, replies::add);
        answers.item(0).ok("at once");
        answers.start(timer);

        assertThat(replies).hasSize(1);
        assertThat(timer.shutdownNow()).as("tasks left on the timer").isEmpty();
    }
}
