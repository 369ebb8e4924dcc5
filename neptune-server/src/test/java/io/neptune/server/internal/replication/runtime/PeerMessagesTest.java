package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import io.neptune.core.internal.json.Json;
import java.lang.reflect.RecordComponent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Peer messages with a field left out, found by {@link PeerMessagesFuzzTest}: Jackson leaves a missing
 * field null, and a Join, Handover or InstallSnapshot without its {@code node} or {@code from} named no
 * sender, so {@link PeerAccess} had no identity to compare with the caller's certificate; a Gossip
 * without entries failed later on the replica's executor, answering nothing. Each is refused as it
 * is decoded (INVALID_REQUEST).
 */
class PeerMessagesTest {
    /** Every primitive field of {@code type} as 0 or false, and {@code service} if {@code withService}. */
    private static String primitivesOnly(Class<?> type, boolean withService) {
        StringBuilder json = new StringBuilder("{");
        for (RecordComponent component : type.getRecordComponents()) {
            Class<?> t = component.getType();
            if (t.isPrimitive()) {
                json.append('"').append(component.getName()).append("\":").append(t == boolean.class ? "false" : "0")
                        .append(',');
            }
        }
        return json.append(withService ? "\"service\":\"kv\"}" : "\"x\":0}").toString();
    }

    private static Class<?> type(String method) {
        return method.equals("gossip") ? PeerMessages.Gossip.class
                : method.equals("pull") ? PeerMessages.Pull.class : ConfigChange.majorityMessageType(method);
    }

    @ParameterizedTest
    @ValueSource(strings = {"vote", "readIndex", "status", "join", "handover", "takeOver", "gossip", "pull", "demote",
            "promote", "install-snapshot", "snapshot", "chunk", "reconfigure"})
    void aMessageWithoutItsServiceIsRefusedAsItIsDecoded(String method) {
        assertThatThrownBy(() -> Json.mapper().readValue(primitivesOnly(type(method), false), type(method)))
                .isInstanceOf(ValueInstantiationException.class).hasMessageContaining("service");
    }

    /** The fields that name the sender ({@link PeerAccess#refusal}), the entries, the snapshot id, the change. */
    @ParameterizedTest
    @ValueSource(strings = {"vote", "join", "handover", "gossip", "pull", "install-snapshot", "chunk", "reconfigure"})
    void aMessageWithoutItsOtherFieldsIsRefusedAsItIsDecoded(String method) {
        assertThatThrownBy(() -> Json.mapper().readValue(primitivesOnly(type(method), true), type(method)))
                .isInstanceOf(ValueInstantiationException.class);
    }

    /**
     * A node of the release before the field sends install-snapshot without {@code boundaryEpoch}: it
     * must still be understood during a rolling upgrade (as a primitive, the field was refused when
     * missing, and so was every such message: SecurityIT's hand-written one found it).
     */
    @org.junit.jupiter.api.Test
    void anInstallSnapshotWithoutTheBoundaryEpochOfAnOlderNodeIsUnderstood() throws Exception {
        PeerMessages.InstallSnapshot m = Json.mapper().readValue("{\"service\":\"kv\",\"partition\":0,"
                + "\"from\":\"n1\",\"epoch\":3,\"logStart\":41}", PeerMessages.InstallSnapshot.class);

        assertThat(m.logStart()).isEqualTo(41);
        assertThat(m.boundaryEpoch()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"service\":\"kv\",\"partition\":0,\"seen\":{\"a\":null}}"})
    void aNullSequenceIsRefused(String json) {
        assertThatThrownBy(() -> Json.mapper().readValue(json, PeerMessages.Pull.class))
                .isInstanceOf(ValueInstantiationException.class);
    }

    /** Found by the fuzz test: the replica converted the entry later, on its executor, and answered nothing. */
    @ParameterizedTest
    @ValueSource(strings = {"\"originSeq\":0,\"kind\":\"COeNFIG\"", "\"originSeq\":-1"})
    void anEntryNoLogRecordCanBeIsRefusedAsItIsDecoded(String field) {
        String json = "{\"service\":\"kv\",\"partition\":0,\"entries\":[{\"lsn\":1,\"epoch\":0,\"method\":\"put\","
                + "\"idHigh\":0,\"idLow\":0,\"origin\":\"a\",\"payload\":\"\"," + field + "}]}";
        assertThatThrownBy(() -> Json.mapper().readValue(json, PeerMessages.Gossip.class))
                .isInstanceOf(ValueInstantiationException.class).hasMessageContaining("entry");
    }
}
