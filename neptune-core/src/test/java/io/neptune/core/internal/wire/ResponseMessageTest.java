package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseMessageTest {
    @Test
    void notPrimaryNamesThePrimaryItKnows() {
        ResponseMessage answer = ResponseMessage.notPrimary(7, "node-2 is not the primary of kv#3", NodeId.of("node-1"));

        assertThat(answer.status()).isEqualTo(Status.NOT_PRIMARY);
        assertThat(answer.suggestedPrimary()).isEqualTo(NodeId.of("node-1"));
        assertThat(answer.errorMessage()).isEqualTo("node-2 is not the primary of kv#3");
        assertThat(new String(answer.payload(), StandardCharsets.UTF_8))
                .isEqualTo("{\"message\":\"node-2 is not the primary of kv#3\",\"primary\":\"node-1\"}");
    }

    @Test
    void notPrimaryWithoutAPrimaryOrWithAnUndocumentedPayloadSuggestsNone() {
        assertThat(ResponseMessage.notPrimary(7, "no primary known", null).suggestedPrimary()).isNull();
        for (String payload : new String[] {"plain text", "[1,2]", "{\"primary\":5}", "{\"primary\":\"\"}", "{"}) {
            ResponseMessage odd = new ResponseMessage(7, Status.NOT_PRIMARY, 0, payload.getBytes(StandardCharsets.UTF_8));

            assertThat(odd.suggestedPrimary()).as(payload).isNull();
            assertThat(odd.errorMessage()).as(payload).isEqualTo(payload);
        }
    }

    @Test
    void otherStatusesCarryTheirMessageAsIs() {
        ResponseMessage answer = ResponseMessage.error(7, Status.UNAVAILABLE, "{\"primary\":\"node-1\"}");

        assertThat(answer.suggestedPrimary()).isNull();
        assertThat(answer.errorMessage()).isEqualTo("{\"primary\":\"node-1\"}");
    }
}
