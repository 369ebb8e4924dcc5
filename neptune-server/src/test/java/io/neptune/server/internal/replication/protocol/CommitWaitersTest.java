package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommitWaitersTest {
    private static final ResponseMessage FIVE_ANSWER = new ResponseMessage(1, Status.OK, 50, new byte[] {5});

    private final CommitWaiters waiters = new CommitWaiters();
    private final List<ResponseMessage> answered = new ArrayList<>();

    @Test
    void theWritesUpToTheAppliedLsnAreAnsweredInLsnOrderWithTheirResponseAddressedToEachRequest() {
        waiters.add(6, 2, answered::add);
        waiters.add(5, 1, answered::add);
        waiters.add(5, 3, answered::add); // a retry of the write at 5, which arrived while it was logged
        waiters.add(7, 4, answered::add);

        waiters.answerUpTo(6, lsn -> lsn == 5 ? FIVE_ANSWER : null);

        assertThat(answered).extracting(ResponseMessage::requestId).containsExactly(1L, 3L, 2L);
        assertThat(answered.get(1).status()).as("the retry gets the write's response").isEqualTo(Status.OK);
        assertThat(answered.get(1).payload()).containsExactly(5);
        assertThat(answered.get(2).status()).as("no cached response: already applied at its LSN")
                .isEqualTo(Status.ALREADY_APPLIED);
        assertThat(answered.get(2).version()).isEqualTo(6);
        assertThat(waiters.isEmpty()).as("the write at 7 still waits").isFalse();
    }

    @Test
    void oneWriteIsAnsweredByItsLsnAndAWriteWithoutWaitersIsNothingToAnswer() {
        waiters.add(5, 1, answered::add);
        waiters.add(6, 2, answered::add);

        waiters.answer(4, FIVE_ANSWER);
        waiters.answer(5, FIVE_ANSWER);

        assertThat(answered).extracting(ResponseMessage::requestId).containsExactly(1L);
        assertThat(answered.get(0).version()).isEqualTo(50);
        waiters.answer(6, null);
        assertThat(answered).extracting(ResponseMessage::status).containsExactly(Status.OK, Status.ALREADY_APPLIED);
        assertThat(waiters.isEmpty()).isTrue();
    }

    @Test
    void abandoningAnswersEveryWaiterByItsRequestIdAndForgetsThem() {
        waiters.add(6, 2, answered::add);
        waiters.add(5, 1, answered::add);

        waiters.abandon(requestId -> ResponseMessage.error(requestId, Status.IN_DOUBT, "stepped down"));

        assertThat(answered).extracting(ResponseMessage::requestId).containsExactly(1L, 2L);
        assertThat(answered).extracting(ResponseMessage::status).containsOnly(Status.IN_DOUBT);
        assertThat(waiters.isEmpty()).isTrue();
        waiters.answerUpTo(10, lsn -> FIVE_ANSWER);
        assertThat(answered).as("nobody is answered twice").hasSize(2);
    }

    @Test
    void clearingForgetsTheWaitersWithoutAnsweringThem() {
        waiters.add(5, 1, answered::add);

        waiters.clear();

        assertThat(waiters.isEmpty()).isTrue();
        waiters.answerUpTo(5, lsn -> FIVE_ANSWER);
        assertThat(answered).isEmpty();
    }
}
