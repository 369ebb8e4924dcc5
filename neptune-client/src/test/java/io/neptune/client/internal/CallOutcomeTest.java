package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.AlreadyAppliedException;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.Read;
import io.neptune.core.PartitionKey;
import io.neptune.core.ServiceClass;
import io.neptune.core.UndecodableResponseException;
import io.neptune.core.Write;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.wire.MessageEncoder;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a call tells its caller about a write, against a scripted replica on a real loopback socket: a
 * write that went out is never reported as not run, and a call that ended leaves nothing behind. Each
 * case was found by review and failed before its fix.
 */
class CallOutcomeTest {
    private static final String SERVICE = ScriptedReplicas.SERVICE;

    private final ScriptedReplicas replicas = new ScriptedReplicas("call-outcome-test");
    private final EventLoopGroup group = replicas.group();
    private final AtomicInteger received = replicas.received();

    record Change(String text) {}

    record Changed(long at) {}

    @AfterEach
    void stop() {
        replicas.close();
    }

    @Test
    void anInterruptedBlockingWriteThatWentOutIsOfUnknownOutcome() {
        DefaultNeptuneClient client = client(replica((request, channel) -> { }), Duration.ofSeconds(30));
        ScheduledExecutorService interrupter = Executors.newSingleThreadScheduledExecutor();
        Thread caller = Thread.currentThread();
        try {
            interrupter.schedule(() -> {
                await().atMost(Duration.ofSeconds(10)).until(() -> received.get() == 1);
                caller.interrupt();
            }, 0, TimeUnit.MILLISECONDS);
            // before: a plain NeptuneException "interrupted while waiting for a call", i.e. "it did not run"
            assertThatThrownBy(() -> client.call(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE,
                    new Change("x"), Changed.class)).isInstanceOf(OutcomeUnknownException.class)
                    .hasMessageContaining("interrupted");
        } finally {
            Thread.interrupted();
            interrupter.shutdownNow();
        }
    }

    @Test
    void aBlockingCallOnAnIoThreadIsRefusedBeforeItSendsAnything() throws Exception {
        DefaultNeptuneClient client = client(replica((request, channel) -> { }), Duration.ofSeconds(5));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        group.next().submit(() -> {
            try {
                client.call(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE, new Change("y"),
                        Changed.class);
            } catch (RuntimeException e) {
                thrown.set(e);
            }
        }).get(10, TimeUnit.SECONDS);
        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("use callAsync");
        // the refusal said "did not run": so it must not have been sent (before, the write went out first)
        CompletableFuture<Changed> probe = client.callAsync(NeptuneHandle.create(), SERVICE, 0, "change",
                AccessMode.WRITE, new Change("probe"), Changed.class, CallOptions.timeout(Duration.ofMillis(300)));
        assertThatThrownBy(probe::join).hasCauseInstanceOf(OutcomeUnknownException.class);
        assertThat(received).as("only the probe reached the replica").hasValue(1);
    }

    @Test
    void callsThatEndedAtTheirDeadlineLeaveNothingInFlight() {
        DefaultNeptuneClient client = client(replica((request, channel) -> { }), Duration.ofMillis(100));
        List<CompletableFuture<Changed>> calls = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            calls.add(client.callAsync(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE,
                    new Change("z" + i), Changed.class, CallOptions.builder().policy(BalancingPolicy.P2C).build()));
        }
        for (CompletableFuture<Changed> call : calls) {
            assertThatThrownBy(call::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(OutcomeUnknownException.class);
        }
        // before: all 50 stayed in the connection's map (with their payloads) until the node answered or the
        // connection closed, and p2c kept counting them against the replica
        await().atMost(Duration.ofSeconds(10)).until(() -> client.pool().inflight() == 0);
        assertThat(client.loadAware().inflight(SERVICE, ServiceClass.DEFAULT_NAME, NodeId.of("ghost"))).isZero();
    }

    @Test
    void aWriteAnsweredAlreadyAppliedAdvancesTheSessionVersion() {
        DefaultNeptuneClient client = client(replica((request, channel) -> channel.writeAndFlush(
                new ResponseMessage(request.requestId(), Status.ALREADY_APPLIED, 42, new byte[0]))),
                Duration.ofSeconds(5));
        NeptuneHandle handle = NeptuneHandle.create();
        assertThatThrownBy(() -> client.call(handle, SERVICE, 0, "change", AccessMode.WRITE, new Change("q"),
                Changed.class)).isInstanceOf(AlreadyAppliedException.class);
        // level 3 reads of this session must see the write that ran: before, the version stayed 0
        assertThat(handle.version(SERVICE, 0)).isEqualTo(42);
    }

    /** A newer version of the service answers with a field this client's type lacks: the answer still decodes. */
    @Test
    void anAnswerWithAFieldTheClientsTypeLacksDecodes() {
        DefaultNeptuneClient client = client(replica((request, channel) -> channel.writeAndFlush(
                ResponseMessage.ok(request.requestId(), 7, "{\"at\":7,\"node\":\"n\"}".getBytes(StandardCharsets.UTF_8)))),
                Duration.ofSeconds(5));
        // before: UndecodableResponseException (Unrecognized field "node"), in every old client during a rolling upgrade
        assertThat(client.call(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE, new Change("n"),
                Changed.class)).isEqualTo(new Changed(7));
    }

    @Test
    void aWriteThatRanButWhoseAnswerCannotBeDecodedSaysItRan() {
        DefaultNeptuneClient client = client(replica((request, channel) -> channel.writeAndFlush(
                ResponseMessage.ok(request.requestId(), 7, "{\"at\":\"seven\"}".getBytes(StandardCharsets.UTF_8)))),
                Duration.ofSeconds(5));
        NeptuneHandle handle = NeptuneHandle.create();
        // before: a plain NeptuneException ("cannot decode"), which by the README means "did not run, retry"
        assertThatThrownBy(() -> client.call(handle, SERVICE, 0, "change", AccessMode.WRITE, new Change("d"),
                Changed.class)).isInstanceOfSatisfying(UndecodableResponseException.class, e -> {
                    assertThat(e.ran()).isTrue();
                    assertThat(e.version()).isEqualTo(7);
                    assertThat(e).hasMessageContaining("ran").hasMessageContaining("\"seven\"");
                });
        assertThat(handle.version(SERVICE, 0)).isEqualTo(7);
    }

    @Test
    void aReadWhoseRetryIsStillOutAtItsDeadlineSaysWhyTheAttemptBeforeFailed() {
        AtomicInteger attempts = new AtomicInteger();
        DefaultNeptuneClient client = client(replica((request, channel) -> {
            if (attempts.incrementAndGet() == 1) { // the first is refused; the retries get no answer
                channel.writeAndFlush(new ResponseMessage(request.requestId(), Status.NOT_PRIMARY, 0,
                        "an election is under way".getBytes(StandardCharsets.UTF_8)));
            }
        }), Duration.ofMillis(400));
        // before: "deadline exceeded: svc#0.look after 400 ms (last tried [ghost])", without the refusal
        assertThatThrownBy(() -> client.call(NeptuneHandle.create(), SERVICE, 0, "look", AccessMode.READ,
                new Change("q"), Changed.class)).isInstanceOf(DeadlineExceededException.class)
                .hasMessageContaining("last tried [ghost]").hasMessageContaining("an election is under way");
    }

    /**
     * A replica that restarted, or dropped back to catching up after an election, refuses reads as
     * "recovering" (STALE) while the yellow page may still show it serving. Before: once every listed
     * replica had refused, the read failed at once with "no replica available" although its deadline
     * was 30 s away (RollingRestartIT saw it in CI); a replica that catches up in a moment must serve it.
     */
    @Test
    void aReadRefusedAsStaleByEveryReplicaWaitsAndTriesAgainUntilOneServes() {
        assertThat(readAnsweredBy(Status.STALE, Status.STALE)).isEqualTo(new Changed(5));
    }

    /**
     * In a rolling restart one replica drains (UNAVAILABLE) while another still catches up (STALE):
     * the read waits for the one catching up, past its retries. Before: it failed once the retries were spent.
     */
    @Test
    void aReadRefusedByADrainingReplicaWhileAnotherCatchesUpWaitsPastItsRetries() {
        assertThat(readAnsweredBy(Status.STALE, Status.UNAVAILABLE, Status.UNAVAILABLE, Status.UNAVAILABLE))
                .isEqualTo(new Changed(5));
    }

    /** A read's answer when the replica refuses its first attempts with {@code refusals}, in order, then serves it. */
    private Changed readAnsweredBy(Status... refusals) {
        AtomicInteger attempts = new AtomicInteger();
        DefaultNeptuneClient client = client(replica((request, channel) -> {
            int attempt = attempts.getAndIncrement();
            channel.writeAndFlush(attempt < refusals.length
                    ? new ResponseMessage(request.requestId(), refusals[attempt], 0,
                            ("refused: " + refusals[attempt]).getBytes(StandardCharsets.UTF_8))
                    : ResponseMessage.ok(request.requestId(), 5, "{\"at\":5}".getBytes(StandardCharsets.UTF_8)));
        }), Duration.ofSeconds(30));
        Changed answer = client.call(NeptuneHandle.create(), SERVICE, 0, "look", AccessMode.READ, new Change("r"),
                Changed.class);
        assertThat(attempts).as("attempts").hasValue(refusals.length + 1);
        return answer;
    }

    @Test
    void aCallRefusedAsNotThePrimaryUntilItsDeadlineNamesTheReplicaThatRefused() {
        DefaultNeptuneClient client = client(replica((request, channel) -> channel.writeAndFlush(new ResponseMessage(
                request.requestId(), Status.NOT_PRIMARY, 0, "an election is under way".getBytes(StandardCharsets.UTF_8)))),
                Duration.ofMillis(400));
        // before: "(none in the yellow page)", though the yellow page's primary answered every attempt
        assertThatThrownBy(() -> client.call(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE,
                new Change("p"), Changed.class)).isInstanceOf(NeptuneException.class)
                .hasMessageContaining("ghost").hasMessageContaining("an election is under way")
                .hasMessageNotContaining("none in the yellow page");
    }

    /**
     * The receiver's frame decoder counts the 4-byte length prefix; the client's check did not, so a
     * request 1 to 4 bytes over the node's max-frame-size went out and the node closed the connection
     * with every other call on it. It is refused before it is sent.
     */
    @Test
    void aRequestOverTheFrameLimitByItsLengthPrefixIsRefusedBeforeItIsSent() throws Exception {
        int max = 1024;
        DefaultNeptuneClient client = client(replica((request, channel) -> channel.writeAndFlush(
                ResponseMessage.ok(request.requestId(), 1, "{\"at\":1}".getBytes(StandardCharsets.UTF_8)))),
                Duration.ofSeconds(5), max);
        long base = MessageEncoder.wireLength(new RequestMessage(0, SERVICE, 0, "change", AccessMode.WRITE, 5000, 0,
                RequestId.random(), JsonCodec.encode(new Change("")), ServiceClass.DEFAULT_NAME));
        Change over = new Change("x".repeat((int) (max + 2 - base)));
        assertThatThrownBy(() -> client.call(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE, over,
                Changed.class)).isInstanceOf(InvalidRequestException.class).hasMessageContaining("max-frame-size");
        assertThat(received).as("nothing sent").hasValue(0);
        Change at = new Change("x".repeat((int) (max - base)));
        assertThat(client.call(NeptuneHandle.create(), SERVICE, 0, "change", AccessMode.WRITE, at, Changed.class).at())
                .isEqualTo(1);
    }

    /** A proxy's options apply to every call through it: one request id would make every later write a repeat. */
    @Test
    void aProxyRefusesARequestId() {
        DefaultNeptuneClient client = client(replica((request, channel) -> { }), Duration.ofSeconds(5));
        assertThatThrownBy(() -> client.proxy(Journal.class, SERVICE,
                CallOptions.builder().requestId("0123456789abcdef0123456789abcdef").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestId");
    }

    /** A service interface for {@link #aProxyRefusesARequestId}. */
    public interface Journal {
        @Write
        Changed change(@PartitionKey int partition, Change change);

        @Read
        Changed last(@PartitionKey int partition, Change ignored);
    }

    /** A replica on loopback that hands each request to {@code onRequest}, counting them. */
    private int replica(BiConsumer<RequestMessage, Channel> onRequest) {
        return replicas.replica(onRequest);
    }

    /** A client whose yellow page shows one node, "ghost", primary of every partition of a level-3 service. */
    private DefaultNeptuneClient client(int port, Duration timeout) {
        return client(port, timeout, ClientConfig.DEFAULT_MAX_FRAME_BYTES);
    }

    private DefaultNeptuneClient client(int port, Duration timeout, int maxFrameBytes) {
        return replicas.client(ClientConfig.builder().timeout(timeout).maxFrameBytes(maxFrameBytes).build(),
                ConsistencyLevel.LEVEL_3, port);
    }
}
