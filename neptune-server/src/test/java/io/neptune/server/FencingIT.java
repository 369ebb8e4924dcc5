package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Appended;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Epoch fencing (DESIGN §6.3): after a fail-over, a {@code replicate} message from the deposed
 * primary's epoch is refused with "stale epoch" and changes nothing on the replica that gets it,
 * whether a secondary or the new primary.
 */
class FencingIT {
    private static final String SERVICE = "journal";
    private static final int PARTITION = 1;

    @Test
    void aPropagationFromAnOlderEpochIsRejected() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int priority = 3; priority >= 1; priority--) {
                HostingConfig hosting = HostingConfig.builder().replicas(3).priority(priority).build();
                cluster.add("node-" + (3 - priority), ClientConfig.defaults(),
                        b -> b.host(new JournalTestService(), hosting));
            }
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b);
            DefaultNeptuneClient client = (DefaultNeptuneClient) observer.client();
            await(() -> primary(observer).equals("node-0") && secondaries(observer) == 2, "node-0 primary");
            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < 10; i++) {
                client.call(handle, SERVICE, PARTITION, "append", AccessMode.WRITE, new Append("before-" + i),
                        Appended.class);
            }
            long oldEpoch = status(client, "node-0").path("epoch").asLong();

            cluster.node(0).close();
            await(() -> primary(observer).equals("node-1") && secondaries(observer) == 1, "node-1 to take over");
            for (int i = 0; i < 5; i++) {
                client.call(handle, SERVICE, PARTITION, "append", AccessMode.WRITE, new Append("after-" + i),
                        Appended.class, CallOptions.timeout(Duration.ofSeconds(10)));
            }
            long end = status(client, "node-1").path("logEnd").asLong(); // 15 writes, and a no-op per majority epoch
            await(() -> status(client, "node-2").path("applied").asLong() == end, "node-2 to apply all " + end);
            long newEpoch = status(client, "node-1").path("epoch").asLong();
            assertThat(newEpoch).as("epoch after the fail-over").isGreaterThan(oldEpoch);

            for (String target : List.of("node-2", "node-1")) {
                JsonNode before = status(client, target);
                JsonNode ack = replicate(client, target, oldEpoch, before.path("logEnd").asLong() + 1);
                assertThat(ack.path("accepted").asBoolean()).as("%s accepted a stale propagation: %s", target, ack)
                        .isFalse();
                assertThat(ack.path("reason").asText()).as("reason from %s", target).contains("stale epoch");
                assertThat(ack.path("epoch").asLong()).as("epoch %s answers with", target).isEqualTo(newEpoch);
                JsonNode after = status(client, target);
                for (String field : List.of("role", "epoch", "logEnd", "applied", "digest")) {
                    assertThat(after.path(field)).as("%s of %s after the stale propagation", field, target)
                            .isEqualTo(before.path(field));
                }
            }
            assertThat(primary(observer)).as("the new primary was not deposed").isEqualTo("node-1");
            Appended next = client.call(handle, SERVICE, PARTITION, "append", AccessMode.WRITE, new Append("last"),
                    Appended.class);
            assertThat(next.lsn()).as("the next write follows the real log").isEqualTo(end + 1);
        }
    }

    /** Sends {@code target} a {@code replicate} of one forged entry at {@code lsn}, as node-0 at {@code epoch}. */
    private static JsonNode replicate(DefaultNeptuneClient client, String target, long epoch, long lsn)
            throws Exception {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("lsn", lsn);
        entry.put("epoch", epoch);
        entry.put("method", "append");
        entry.put("idHigh", 42L);
        entry.put("idLow", 43L);
        entry.put("origin", "");
        entry.put("originSeq", 0L);
        entry.put("payload", Json.mapper().writeValueAsBytes(new Append("forged")));
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("service", SERVICE);
        message.put("partition", PARTITION);
        message.put("from", "node-0");
        message.put("epoch", epoch);
        message.put("commitLsn", lsn);
        message.put("entries", List.of(entry));
        message.put("prevLsn", lsn - 1);
        message.put("prevEpoch", epoch);
        message.put("prevOrigin", "node-0");
        return peer(client, target, "replicate", message);
    }

    private static JsonNode status(DefaultNeptuneClient client, String node) {
        try {
            return peer(client, node, "status", Map.of("service", SERVICE, "partition", PARTITION));
        } catch (Exception e) {
            throw new AssertionError("status of " + node, e);
        }
    }

    private static JsonNode peer(DefaultNeptuneClient client, String node, String method, Object message)
            throws Exception {
        RequestMessage request = new RequestMessage(0, ReplicationEngine.SERVICE, PARTITION, method, AccessMode.WRITE,
                5000, 0, RequestId.NONE, Json.mapper().writeValueAsBytes(message));
        ResponseMessage response = client.sendTo(NodeId.of(node), request, PARTITION).get(10, TimeUnit.SECONDS);
        assertThat(response.status()).as("%s to %s: %s", method, node, response.errorMessage()).isEqualTo(Status.OK);
        return Json.mapper().readTree(response.payload());
    }

    private static String primary(NeptuneNode observer) {
        return observer.replicaRoles(SERVICE, PARTITION).entrySet().stream().filter(e -> e.getValue() == ReplicaRole.PRIMARY)
                .map(e -> e.getKey().value()).findFirst().orElse("");
    }

    private static long secondaries(NeptuneNode observer) {
        return observer.replicaRoles(SERVICE, PARTITION).values().stream().filter(r -> r == ReplicaRole.SECONDARY).count();
    }

    private static void await(BooleanSupplier condition, String what) {
        ReplicatedProcesses.await(condition, Duration.ofSeconds(30), what);
    }
}
