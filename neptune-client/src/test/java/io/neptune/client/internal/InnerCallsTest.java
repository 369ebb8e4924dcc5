package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.ClientConfig;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneException;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.channel.Channel;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The inner calls of a call a node serves, over a client whose replica is scripted on a loopback
 * socket: what they inherit from the outer call, and how they end when its caller goes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InnerCallsTest {
    private static final String SERVICE = ScriptedReplicas.SERVICE;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ScriptedReplicas replicas = new ScriptedReplicas("inner-calls-test");
    /** The version floor each request asked, by its partition. */
    private final Map<Integer, Long> floors = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        replicas.close();
    }

    @Test
    void anInnerReadOfTheOuterPartitionAsksTheFloorTheOuterCallerAskedAndOfAnotherPartitionNone() throws Exception {
        InnerCalls calls = innerCalls(answering(), outer(2, 7), new CallerGone());

        calls.callAsync(SERVICE, 2, "read", AccessMode.READ, "x", String.class).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        calls.callAsync(SERVICE, 1, "read", AccessMode.READ, "x", String.class).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(floors).containsEntry(2, 7L).containsEntry(1, 0L);
    }

    @Test
    void aCallInFlightWhenTheCallerGoesEndsAtOnceAndALaterOneIsNotSent() {
        CallerGone caller = new CallerGone();
        InnerCalls calls = innerCalls((request, channel) -> { }, outer(0, 0), caller);   // never answers
        CompletableFuture<String> inFlight = calls.callAsync(SERVICE, 0, "read", AccessMode.READ, "x", String.class);
        // In flight means on the replica: the client connects and writes asynchronously, so a loaded machine
        // may not have sent the request yet when the next line runs.
        await().atMost(WAIT).untilAsserted(() -> assertThat(replicas.received()).as("requests the replica got")
                .hasValue(1));

        caller.signal("its connection closed");

        assertThat(inFlight).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(NeptuneException.class).withMessageContaining(
                        "the call it is part of, " + SERVICE + ".outer, was dropped: its connection closed");
        assertThat(calls.callAsync(SERVICE, 1, "read", AccessMode.READ, "x", String.class)).failsWithin(WAIT)
                .withThrowableOfType(ExecutionException.class).havingCause().withMessage(SERVICE
                        + "#1.read: not sent, as the call it is part of, " + SERVICE + ".outer, was dropped: its"
                        + " connection closed");
        assertThat(replicas.received()).as("requests the replica got").hasValue(1);
    }

    private InnerCalls innerCalls(BiConsumer<RequestMessage, Channel> replica,
            InnerCalls.Outer outer, CallerGone caller) {
        int port = replicas.replica(replica);
        DefaultNeptuneClient client = replicas.client(ClientConfig.defaults(), ConsistencyLevel.LEVEL_3, port);
        return new InnerCalls(client, new InnerCalls.Outer(outer.request(), outer.deadlineNanos(), outer.reentrant(),
                caller));
    }

    /** A replica that records each read's floor and answers it at version 1. */
    private BiConsumer<RequestMessage, Channel> answering() {
        return (request, channel) -> {
            floors.put(request.partition(), request.minVersion());
            try {
                channel.writeAndFlush(ResponseMessage.ok(request.requestId(), 1, JsonCodec.encode("read")));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
    }

    /** A read of {@code partition} served now, whose caller's session asked for {@code floor}. */
    private static InnerCalls.Outer outer(int partition, long floor) {
        RequestMessage request = new RequestMessage(1, SERVICE, partition, "outer", AccessMode.READ, 60_000, floor,
                RequestId.NONE, new byte[0], ServiceClass.DEFAULT_NAME);
        return new InnerCalls.Outer(request, System.nanoTime() + TimeUnit.SECONDS.toNanos(60), false, CallerGone.NEVER);
    }
}
