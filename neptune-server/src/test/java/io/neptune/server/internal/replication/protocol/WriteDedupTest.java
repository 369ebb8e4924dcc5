package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class WriteDedupTest {
    private static final ResponseMessage FIRST_ANSWER = new ResponseMessage(7, Status.OK, 12, new byte[] {1});

    @Test
    void aWriteAnsweredBeforeIsAnsweredTheSameToTheRetryWithoutAskingTheLog() {
        WriteDedup seen = WriteDedup.of(9, FIRST_ANSWER, () -> {
            throw new AssertionError("the log is not asked");
        }, 0);

        assertThat(seen).isInstanceOf(WriteDedup.Answer.class);
        ResponseMessage answer = ((WriteDedup.Answer) seen).response();
        assertThat(answer.requestId()).as("addressed to the retry").isEqualTo(9);
        assertThat(answer.status()).isEqualTo(Status.OK);
        assertThat(answer.version()).isEqualTo(12);
        assertThat(answer.payload()).containsExactly(1);
    }

    @Test
    void aWriteLoggedAndAppliedWhoseAnswerIsGoneIsAlreadyApplied() {
        WriteDedup seen = WriteDedup.of(9, null, () -> OptionalLong.of(5), 5);

        ResponseMessage answer = ((WriteDedup.Answer) seen).response();
        assertThat(answer.status()).isEqualTo(Status.ALREADY_APPLIED);
        assertThat(answer.version()).as("its LSN").isEqualTo(5);
    }

    @Test
    void aWriteLoggedButNotAppliedIsTheModesToDecideAndAnUnknownOneIsNew() {
        assertThat(WriteDedup.of(9, null, () -> OptionalLong.of(6), 5)).isEqualTo(new WriteDedup.Logged(6));
        assertThat(WriteDedup.of(9, null, OptionalLong::empty, 5)).isEqualTo(new WriteDedup.Unseen());
    }

    @Test
    void aCommittedWriteIsAnsweredWithItsResponseOrAlreadyApplied() {
        assertThat(WriteDedup.committed(3, FIRST_ANSWER, 12).requestId()).isEqualTo(3);
        assertThat(WriteDedup.committed(3, FIRST_ANSWER, 12).status()).isEqualTo(Status.OK);
        assertThat(WriteDedup.committed(3, null, 12).status()).isEqualTo(Status.ALREADY_APPLIED);
        assertThat(WriteDedup.committed(3, null, 12).version()).isEqualTo(12);
    }

    @Test
    void aNewWriteIsLoggedAtTheNextLsnOfTheEpochItWasTakenInNamingThePrimaryAsItsOrigin() {
        RequestId id = RequestId.random();
        RequestMessage request = new RequestMessage(9, "s", 0, "add", AccessMode.WRITE, 1_000, 0, id, new byte[] {3});

        LogRecord record = WriteDedup.record(request, 41, 6, NodeId.of("n2"));

        assertThat(record.lsn()).isEqualTo(42);
        assertThat(record.epoch()).isEqualTo(6);
        assertThat(record.kind()).isEqualTo(RecordKind.WRITE);
        assertThat(record.requestId()).isEqualTo(id);
        assertThat(record.origin()).isEqualTo("n2");
        assertThat(record.method()).isEqualTo("add");
        assertThat(record.payload()).containsExactly(3);
    }
}
