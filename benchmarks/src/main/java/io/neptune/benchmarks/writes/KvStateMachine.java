package io.neptune.benchmarks.writes;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/**
 * A minimal Ratis state machine that stores what it is sent: each log entry is {@code key=value}
 * (UTF-8), put into an in-memory map; the reply is the entry's log index. The same work as
 * {@link KvWriteService#put}. It takes no snapshots (none are triggered in the experiment).
 *
 * <p>Thread-safety: Ratis applies one group's entries in log order on one thread.
 */
final class KvStateMachine extends BaseStateMachine {
    private final ConcurrentHashMap<String, String> map = new ConcurrentHashMap<>();

    /** The log entry of a put of {@code value} under {@code key}. */
    static Message put(String key, String value) {
        return Message.valueOf(key + '=' + value);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        String data = entry.getStateMachineLogEntry().getLogData().toStringUtf8();
        int split = data.indexOf('=');
        if (split < 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "entry " + entry.getIndex() + ": no '=' (expected: key=value)"));
        }
        map.put(data.substring(0, split), data.substring(split + 1));
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.completedFuture(Message.valueOf(Long.toString(entry.getIndex())));
    }
}
