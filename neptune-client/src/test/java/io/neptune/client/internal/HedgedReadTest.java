package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged reads against two scripted replicas on real loopback sockets, called in turn (round robin):
 * once the reads' 95th percentile is known, a read the first replica does not answer in time is sent to
 * the other, which answers it.
 */
class HedgedReadTest {
    private static final String SERVICE = ScriptedReplicas.SERVICE;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final ScriptedReplicas replicas = new ScriptedReplicas("hedged-read-test");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** Whether the first replica, "ghost", stopped answering. */
    private final AtomicBoolean stalled = new AtomicBoolean();

    record Look(String key) {}

    record Seen(long at) {}

    @AfterEach
    void stop() {
        replicas.close();
    }

    @Test
    void aReadTheFirstReplicaDoesNotAnswerIsAnsweredByTheSecondAfterTheHedgingDelay() {
        DefaultNeptuneClient client = client(true, ConsistencyLevel.LEVEL_1);
        warmUp(client);
        stalled.set(true);
        for (int i = 0; i < 10; i++) {
            long started = System.nanoTime();
            assertThat(read(client, TIMEOUT)).isEqualTo(new Seen(1));
            // before: every other read waited for the stalled replica until its 5 s deadline
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("read %d, ms", i)
                    .isLessThan(2_000);
        }
        // a read the fast replica holds past the percentile is hedged too, and may still be answered by it first
        assertThat(count("neptune.client.hedges.won")).isGreaterThanOrEqualTo(4)
                .isLessThanOrEqualTo(count("neptune.client.hedges"));
        // a read is counted just after its future completes; a hedged read is one call
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                registry.get("neptune.client.calls").tag("outcome", "ok").timer().count()).isEqualTo(50));
    }

    @Test
    void readsAreNotHedgedUnlessHedgingIsOn() {
        DefaultNeptuneClient client = client(false, ConsistencyLevel.LEVEL_1);
        warmUp(client);
        stalled.set(true);
        assertThat(deadlinesMissedInTwoReads(client)).as("round robin: one of two reads goes to the stalled replica")
                .isEqualTo(1);
        assertThat(registry.find("neptune.client.hedges").counter()).isNull();
    }

    @Test
    void levelThreeReadsAreNeverHedged() {
        DefaultNeptuneClient client = client(true, ConsistencyLevel.LEVEL_3);
        warmUp(client);
        stalled.set(true);
        assertThat(deadlinesMissedInTwoReads(client)).isEqualTo(1);
        assertThat(registry.find("neptune.client.hedges").counter()).isNull();
    }

    @Test
    void aWriteIsNeverHedged() {
        DefaultNeptuneClient client = client(true, ConsistencyLevel.LEVEL_1);
        RequestMessage write = new RequestMessage(0, SERVICE, 0, "put", AccessMode.WRITE, 1000, 0,
                io.neptune.core.internal.wire.RequestId.random(), new byte[0], "default");
        assertThat(HedgedRead.applies(client, write)).isFalse();
        assertThat(HedgedRead.applies(client, new RequestMessage(0, SERVICE, 0, "get", AccessMode.READ, 1000, 0,
                io.neptune.core.internal.wire.RequestId.NONE, new byte[0], "default"))).isTrue();
    }

    /** Forty answered reads, twenty per replica: enough for the percentile. */
    private void warmUp(DefaultNeptuneClient client) {
        for (int i = 0; i < 40; i++) {
            assertThat(read(client, TIMEOUT)).isEqualTo(new Seen(1));
        }
    }

    /** How many of two reads with a 500 ms deadline end past it. */
    private static int deadlinesMissedInTwoReads(DefaultNeptuneClient client) {
        int missed = 0;
        for (int i = 0; i < 2; i++) {
            try {
                read(client, Duration.ofMillis(500));
            } catch (DeadlineExceededException e) {
                missed++;
            }
        }
        return missed;
    }

    private DefaultNeptuneClient client(boolean hedged, ConsistencyLevel level) {
        BiConsumer<RequestMessage, Channel> answer = (request, channel) -> channel.writeAndFlush(
                ResponseMessage.ok(request.requestId(), 1, "{\"at\":1}".getBytes(StandardCharsets.UTF_8)));
        int stalling = replicas.replica((request, channel) -> {
            if (!stalled.get()) {
                answer.accept(request, channel);
            }
        });
        int fast = replicas.replica(answer);
        return replicas.client(ClientConfig.builder().policy(BalancingPolicy.ROUND_ROBIN).hedgedReads(hedged).build(),
                level, registry, stalling, fast);
    }

    private static Seen read(DefaultNeptuneClient client, Duration timeout) {
        return client.call(NeptuneHandle.create(), SERVICE, 0, "look", AccessMode.READ, new Look("k"), Seen.class,
                CallOptions.timeout(timeout));
    }

    private double count(String name) {
        return registry.get(name).tag("service", SERVICE).counter().count();
    }
}
