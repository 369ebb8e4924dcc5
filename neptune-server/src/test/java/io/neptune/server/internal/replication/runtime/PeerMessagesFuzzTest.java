package io.neptune.server.internal.replication.runtime;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.neptune.core.internal.json.Json;
import io.neptune.testing.DecodedValues;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz test of the peer-message decoders (docs/SECURITY.md, Fuzzing): a {@code $replication}
 * request's payload read as {@link PeerEndpoint#handle} reads it, its {@code service} field
 * and then the record of each method a replica accepts (majority, primary-backup and write-anywhere
 * modes). The contract: a message the replica can act on, or Jackson's {@link IOException} (which
 * wraps what the records' constructors refuse), answered INVALID_REQUEST before anything changes.
 * "Can act on": no non-nullable field null, and every log entry it carries converts to a log record,
 * as the replica converts it later, on its executor, where a failure answers nothing.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS) // Jazzer's per-input timeout when fuzzing
class PeerMessagesFuzzTest {
    /** Every method of {@link ConfigChange#majorityMessageType} and of write-anywhere mode. */
    private static final List<String> METHODS = List.of("replicate", "status", "vote", "readIndex", "join", "handover",
            "demote", "promote", "takeOver", "reconfigure", "install-snapshot", "snapshot", "chunk", "gossip", "pull");

    @FuzzTest(maxDuration = "5m")
    void payloads(byte[] input) {
        try {
            Json.mapper().readTree(input).path("service").asText();
        } catch (IOException refused) {
            return;
        }
        for (String method : METHODS) {
            Object message;
            try {
                message = Json.mapper().readValue(input, type(method));
            } catch (IOException refused) {
                continue;
            }
            DecodedValues.assertNoUnexpectedNulls(message);
            for (PeerMessages.Entry entry : entries(message)) {
                entry.toRecord(entry.lsn());
            }
        }
    }

    private static Class<?> type(String method) {
        return switch (method) {
            case "gossip" -> PeerMessages.Gossip.class;
            case "pull" -> PeerMessages.Pull.class;
            default -> ConfigChange.majorityMessageType(method);
        };
    }

    private static List<PeerMessages.Entry> entries(Object message) {
        if (message instanceof PeerMessages.Replicate m) {
            return m.entries();
        }
        if (message instanceof PeerMessages.Gossip m) {
            return m.entries();
        }
        return List.of();
    }
}
