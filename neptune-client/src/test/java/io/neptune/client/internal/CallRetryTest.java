package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.OverloadedException;
import io.neptune.core.ReplicaRole;
import io.neptune.client.internal.ScriptedReplicas.Held;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a call paces and limits its retries, against a scripted primary on a real loopback socket that
 * refuses every write as overloaded: backoff instead of a fixed 50 ms pause, and the client's retry
 * budget ending calls that would retry once too many attempts failed.
 */
class CallRetryTest {
    private static final String SERVICE = ScriptedReplicas.SERVICE;
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final ScriptedReplicas replicas = new ScriptedReplicas("call-retry-test");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    record Change(String text) {}

    record Changed(long at) {}

    @AfterEach
    void stop() {
        replicas.close();
    }

    /**
     * A level-3 write goes to the primary of the moment until its deadline. Before: every 50 ms, about
     * 40 attempts in 2 s at a primary that refuses them all; with backoff 50, 100, 200, 400, 800 ms the
     * next wait (1 s) would pass the deadline, so it ends after 6.
     */
    @Test
    void aWriteAtAPrimaryThatKeepsRefusingItBacksOffExponentially() {
        ClientConfig backoff = ClientConfig.builder().timeout(TIMEOUT).retryJitter(false).retryBudgetTokens(0).build();
        assertThatThrownBy(() -> write(client(backoff), "a")).isInstanceOf(OverloadedException.class);
        assertThat(replicas.received().get()).as("attempts").isBetween(5, 6);
    }

    /** The baseline the backoff replaces, set up through the same settings: a fixed 50 ms pause. */
    @Test
    void aMultiplierOfOneWithoutJitterIsTheFixedPauseOfEarlierVersions() {
        ClientConfig fixed = ClientConfig.builder().timeout(TIMEOUT).retryBackoffMultiplier(1)
                .retryBackoffMax(Duration.ofMillis(50)).retryJitter(false).retryBudgetTokens(0).build();
        assertThatThrownBy(() -> write(client(fixed), "a")).isInstanceOf(OverloadedException.class);
        assertThat(replicas.received().get()).as("attempts").isGreaterThan(20);
    }

    @Test
    void aCallThatWouldRetryOnceTheBudgetIsSpentFailsWithItsLastErrorSayingSo() {
        // 4 tokens: retries stop at 2 left, i.e. after the second failed attempt
        DefaultNeptuneClient client = client(ClientConfig.builder().timeout(TIMEOUT).retryBudgetTokens(4).build());
        assertThatThrownBy(() -> write(client, "a")).isInstanceOfSatisfying(OverloadedException.class, e -> {
            assertThat(e).hasMessageContaining("retry budget exhausted");
            assertThat(e.getCause()).isInstanceOf(OverloadedException.class).hasMessageContaining("queue full");
        });
        assertThat(replicas.received().get()).as("the first attempt and one retry").isEqualTo(2);
        assertThatThrownBy(() -> write(client, "b")).isInstanceOf(OverloadedException.class)
                .hasMessageContaining("retry budget exhausted");
        assertThat(replicas.received().get()).as("a first attempt is never held back, its retries are").isEqualTo(3);
        assertThat(registry.get("neptune.client.retries.throttled").tag("service", SERVICE).counter().count())
                .isEqualTo(2);
        assertThat(registry.get("neptune.client.retry.budget.tokens").gauge().value()).isEqualTo(1.0);
    }

    /**
     * A restarted replica refuses reads as STALE until it catches up; the read waits for it until its
     * deadline (RollingRestartIT). That wait neither costs tokens nor is held back by a spent budget:
     * a replica catching up is not a replica in trouble.
     */
    @Test
    void aReadRefusedAsStaleStillWaitsForTheReplicaToCatchUpWhenTheBudgetIsSpent() {
        AtomicInteger reads = new AtomicInteger();
        int port = replicas.replica((request, channel) -> {
            boolean serve = request.mode() == AccessMode.READ && reads.incrementAndGet() > 4;
            channel.writeAndFlush(serve ? ResponseMessage.ok(request.requestId(), 5, bytes("{\"at\":5}"))
                    : new ResponseMessage(request.requestId(), request.mode() == AccessMode.READ ? Status.STALE
                            : Status.OVERLOADED, 0, bytes("refused")));
        });
        DefaultNeptuneClient client = replicas.client(ClientConfig.builder().timeout(TIMEOUT).retryBudgetTokens(2)
                .build(), ConsistencyLevel.LEVEL_3, registry, port);
        assertThatThrownBy(() -> write(client, "spend")).hasMessageContaining("retry budget exhausted");
        assertThat(client.retryBudget().allowsRetry()).isFalse();
        Changed read = client.call(NeptuneHandle.create(), SERVICE, 0, "look", AccessMode.READ, new Change("r"),
                Changed.class);
        assertThat(read).isEqualTo(new Changed(5));
        assertThat(reads).as("4 refusals, then the answer").hasValue(5);
    }

    /**
     * A level-3 read whose only eligible replica is the primary (the secondary lags behind the primary's
     * staleness bound), sent as that primary dies, waits for the fail-over within its deadline instead
     * of failing at once. The demo's chaos run (node-1 killed) ended such a read of auction#24 with
     * NoReplicaAvailableException "tried [node-1]" after one attempt, while its secondaries were alive.
     */
    @Test
    void aLevelThreeReadWhosePrimaryDiesWaitsForTheNextPrimary() {
        YellowPage page = ScriptedReplicas.page();
        int next = replicas.replica((request, channel) -> channel.writeAndFlush(
                ResponseMessage.ok(request.requestId(), 9, bytes("{\"at\":9}"))));
        int dying = replicas.replica((request, channel) -> {
            channel.close(); // the primary dies with the read in hand; a moment later the secondary leads
            replicas.group().schedule(() -> ScriptedReplicas.announce(page, "ghost-1", next, ConsistencyLevel.LEVEL_3,
                    new Held(ReplicaRole.PRIMARY, 2, 9, 9)), 300, TimeUnit.MILLISECONDS);
        });
        ScriptedReplicas.announce(page, "ghost", dying, ConsistencyLevel.LEVEL_3, new Held(ReplicaRole.PRIMARY, 1, 9, 9));
        ScriptedReplicas.announce(page, "ghost-1", next, ConsistencyLevel.LEVEL_3,
                new Held(ReplicaRole.SECONDARY, 1, 5, 0));
        DefaultNeptuneClient client = replicas.client(ClientConfig.builder().timeout(TIMEOUT).build(), page, registry);

        Changed read = client.call(NeptuneHandle.create(), SERVICE, 0, "look", AccessMode.READ, new Change("r"),
                Changed.class);

        assertThat(read).isEqualTo(new Changed(9));
        assertThat(replicas.received()).as("the dead primary's attempt, then the new primary's").hasValue(2);
    }

    private DefaultNeptuneClient client(ClientConfig config) {
        int port = replicas.replica((request, channel) -> channel.writeAndFlush(new ResponseMessage(
                request.requestId(), Status.OVERLOADED, 0, bytes("queue full on ghost"))));
        return replicas.client(config, ConsistencyLevel.LEVEL_3, registry, port);
    }

    private static Changed write(DefaultNeptuneClient client, String text) {
        return client.call(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE, new Change(text),
                Changed.class);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
