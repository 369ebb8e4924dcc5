package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.OverloadedException;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.MessageDecoder;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.WireFormat;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import io.neptune.server.EchoTestService.Sleep;
import io.neptune.testing.WireFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a node does with bytes that are not a valid request: raw sockets send malformed,
 * truncated, oversize and unknown frames; each gets a PROTOCOL_ERROR naming the problem and a
 * closed connection, while other connections and client calls keep working. Also the typed
 * errors of a bad payload, a full queue and a passed deadline.
 */
@Tag("alone") // runs by itself (failsafe's first pass): it asserts a call past its deadline ends within 1.5 s
class ProtocolRobustnessIT {
    private static final int SMALL_FRAME = 1024;
    private static final Duration SHORT_FRAME_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(10);

    private static MiniCluster cluster;
    /** Hosts echo with the default 4 MiB frame limit. */
    private static NeptuneNode node;
    /** Hosts echo with a 1 KiB frame limit and a 1 s frame timeout. */
    private static NeptuneNode smallFrames;
    /** Hosts nothing: its calls always cross TCP. */
    private static NeptuneNode clientNode;

    @BeforeAll
    static void startCluster() {
        cluster = MiniCluster.start(1, b -> b.host(new EchoTestService(), HostingConfig.all()));
        node = cluster.node(0);
        NodeConfig base = cluster.config("small-frames", ClientConfig.defaults());
        NodeConfig small = base.toBuilder().maxFrameBytes(SMALL_FRAME).frameTimeout(SHORT_FRAME_TIMEOUT).build();
        smallFrames = cluster.add(small, b -> b.host(new EchoTestService(), HostingConfig.all()));
        clientNode = cluster.add("client", ClientConfig.defaults(), b -> b);
        cluster.awaitNodes(2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // ---------------------------------------------------------------- malformed frames

    @Test
    void garbageWithAValidLengthPrefix() throws Exception {
        byte[] garbage = "hello, neptune! this is no frame".getBytes(StandardCharsets.US_ASCII);

        assertRejectedAndClosed(node, prefixed(garbage), "magic: 0x6865 (expected: 0x4e50)");
    }

    @Test
    void badMagic() throws Exception {
        byte[] frame = encode(echoRequest(1, "x"));
        frame[4] = (byte) 0xCA;
        frame[5] = (byte) 0xFE;

        assertRejectedAndClosed(node, frame, "magic: 0xcafe (expected: 0x4e50)");
    }

    @Test
    void badProtocolVersion() throws Exception {
        byte[] frame = encode(echoRequest(1, "x"));
        frame[6] = 9;

        assertRejectedAndClosed(node, frame, "protocol version: 9 (expected: 1..2)");
    }

    @Test
    void unknownMessageType() throws Exception {
        byte[] frame = encode(echoRequest(1, "x"));
        frame[7] = 7;

        assertRejectedAndClosed(node, frame, "message type: 7 (expected: 1..6)");
    }

    @Test
    void responseFrameOnARequestConnection() throws Exception {
        byte[] frame = encode(ResponseMessage.ok(77, 0, new byte[0]));

        ResponseMessage answer = assertRejectedAndClosed(node, frame, "unexpected response frame");
        assertThat(answer.requestId()).isEqualTo(77);
    }

    @Test
    void truncatedBody() throws Exception {
        byte[] full = encode(echoRequest(1, "some text"));
        byte[] frame = new byte[4 + WireFormat.HEADER_BYTES + 3];
        System.arraycopy(full, 0, frame, 0, frame.length);
        setInt(frame, 0, frame.length - 4); // the prefix agrees; the fields run short

        assertRejectedAndClosed(node, frame, "truncated frame at service");
    }

    @Test
    void truncatedFrameThenEndOfStream() throws Exception {
        byte[] full = encode(echoRequest(1, "some text"));
        byte[] partial = new byte[20]; // the prefix promises more than arrives

        System.arraycopy(full, 0, partial, 0, partial.length);
        try (Socket socket = connect(node)) {
            socket.getOutputStream().write(partial);
            socket.getOutputStream().flush();
            socket.shutdownOutput();

            ResponseMessage answer = readResponse(socket);
            assertProtocolError(answer, "truncated frame");
            assertClosedByServer(socket);
        }
        assertNodeStillServes(node);
    }

    @Test
    void aFrameThatStallsPartWayIsRefusedAtTheFrameTimeout() throws Exception {
        byte[] frame = encode(echoRequest(1, "never finished"));

        assertRejectedAndClosed(smallFrames, java.util.Arrays.copyOf(frame, 10),
                "frame timeout: 10 of " + frame.length + " bytes of a frame arrived in 1000 ms");
    }

    /**
     * A client that sends and never reads: the node stops reading it once its answers pile up,
     * instead of queueing every answer in memory; when the client reads at last, every answer
     * comes.
     */
    @Test
    void aClientThatDoesNotReadStopsTheNodeReadingItInsteadOfGrowingItsMemory() throws Exception {
        int requests = 3000; // 24 MiB of requests, more than loopback's socket buffers hold
        String text = "r".repeat(8 * 1024);
        int times = 8; // 64 KiB answers: 188 MiB if the node took every request
        long bound = 24L << 20;
        try (Socket socket = connect(node)) {
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    for (int i = 1; i <= requests; i++) {
                        out.write(encode(repeatRequest(i, text, times)));
                    }
                    out.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            // past the high water mark (64 KiB) the node stops reading; how far past depends on the read bursts
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> node.outboundBytes() > 32 << 10);
            org.awaitility.Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .until(() -> node.outboundBytes() < bound);
            assertThat(sent).as("the sender is held by TCP's flow control").isNotDone();

            java.util.BitSet answered = new java.util.BitSet();
            for (int i = 1; i <= requests; i++) {
                ResponseMessage answer = readResponse(socket); // workers answer in any order
                assertThat(answer.status()).as(answer.errorMessage()).isEqualTo(Status.OK);
                answered.set((int) answer.requestId());
            }
            assertThat(answered.cardinality()).isEqualTo(requests);
            assertThat(answered.nextSetBit(0)).isEqualTo(1);
            sent.get(30, TimeUnit.SECONDS);
        }
        assertNodeStillServes(node);
    }

    @Test
    void lengthPrefixAboveTheDefaultMaxFrame() throws Exception {
        int length = ClientConfig.DEFAULT_MAX_FRAME_BYTES * 2;
        byte[] frame = new byte[4 + 16]; // only the start: the server must not wait for the rest
        setInt(frame, 0, length);

        assertRejectedAndClosed(node, frame, "exceeds " + ClientConfig.DEFAULT_MAX_FRAME_BYTES);
    }

    @Test
    void wholeFrameAboveASmallMaxFrame() throws Exception {
        byte[] frame = encode(echoRequest(1, "y".repeat(2 * SMALL_FRAME)));
        assertThat(frame.length).isGreaterThan(SMALL_FRAME);

        assertRejectedAndClosed(smallFrames, frame, "exceeds " + SMALL_FRAME);
    }

    @Test
    void frameJustBelowASmallMaxFrameIsServed() throws Exception {
        RequestMessage request = echoRequest(1, "");
        int overhead = encode(request).length;
        RequestMessage largest = echoRequest(1, "z".repeat(SMALL_FRAME - overhead));
        assertThat(encode(largest)).hasSize(SMALL_FRAME);

        try (Socket socket = connect(smallFrames)) {
            send(socket, encode(largest));
            ResponseMessage answer = readResponse(socket);
            assertThat(answer.status()).as(answer.errorMessage()).isEqualTo(Status.OK);
        }
    }

    /**
     * A read's answer carries the node's load with the read still counted: the reply is written
     * before the worker lets go of it. The client's load-aware policy relies on this and takes the
     * read off ({@code LoadAware.loadLeft}); if the node stops counting it, change both.
     */
    @Test
    void aReadsAnswerCountsTheReadInTheLoadItCarries() throws Exception {
        // another test's call may still be running there (callOutliving... leaves a 2 s sleep behind)
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> node.load().getOrDefault("echo", -1) == 0);
        try (Socket socket = connect(node)) {
            send(socket, encode(echoRequest(9, "alone")));
            ResponseMessage answer = readResponse(socket);
            assertThat(answer.status()).as(answer.errorMessage()).isEqualTo(Status.OK);
            assertThat(answer.load()).as("the load of a node serving nothing but this read").isEqualTo(1);
        }
    }

    // ---------------------------------------------------------------- bad payloads

    @Test
    void payloadThatIsNotJsonIsAnInvalidRequest() throws Exception {
        RequestMessage request = new RequestMessage(5, "echo", 0, "echo", AccessMode.READ, 5000, 0, RequestId.NONE,
                "{not json".getBytes(StandardCharsets.UTF_8));

        try (Socket socket = connect(node)) {
            send(socket, encode(request));
            ResponseMessage answer = readResponse(socket);

            assertThat(answer.requestId()).isEqualTo(5);
            assertThat(answer.status()).isEqualTo(Status.INVALID_REQUEST);
            assertThat(answer.errorMessage()).contains("cannot decode request of echo#0.echo as Echo");

            // A bad payload is the caller's problem, not the connection's: it stays usable.
            send(socket, encode(echoRequest(6, "after")));
            ResponseMessage next = readResponse(socket);
            assertThat(next.requestId()).isEqualTo(6);
            assertThat(next.status()).isEqualTo(Status.OK);
            assertThat(Json.mapper().readValue(next.payload(), Reply.class).text()).isEqualTo("after");
        }
    }

    /**
     * A replicated write whose payload does not decode as its method's request was logged on every
     * replica and took an LSN, though its answer, INVALID_REQUEST, says it did not run: only the apply
     * decoded it. It must be refused before it is logged.
     */
    @Test
    void aReplicatedWriteThatDoesNotDecodeIsRefusedWithoutTakingAnLsn() throws Exception {
        try (MiniCluster own = journalCluster()) {
            NeptuneNode client = own.add("client", ClientConfig.defaults(), b -> b);
            own.awaitNodes(1);
            NeptuneHandle handle = NeptuneHandle.create();
            JournalTestService.Appended first = append(client, handle, "first");

            for (String payload : List.of("{not json", "{\"millis\":5}")) {
                RequestMessage bad = new RequestMessage(9, "journal", 0, "append", AccessMode.WRITE, 5000, 0,
                        RequestId.random(), payload.getBytes(StandardCharsets.UTF_8));
                ResponseMessage answer = answerTo(own.node(0), bad);
                assertThat(answer.status()).as(payload).isEqualTo(Status.INVALID_REQUEST);
                assertThat(answer.errorMessage()).contains("cannot decode request of journal#0.append as Append");
            }
            JournalTestService.Appended next = append(client, handle, "next");
            assertThat(next.lsn()).as("the LSN after the refused writes").isEqualTo(first.lsn() + 1);
            assertThat(next.size()).as("entries in the journal").isEqualTo(first.size() + 1);
        }
    }

    /**
     * A malformed replication message was acted on before it was checked: one with the largest epoch
     * and no entries made the primary adopt and persist that epoch, step down, and then fail on the
     * missing entries without an answer; every later election's epoch overflowed, so the partition
     * never had a primary again. Malformed messages are refused as they are decoded.
     */
    @Test
    void aMalformedReplicationMessageIsRefusedBeforeItChangesAnything() throws Exception {
        try (MiniCluster own = journalCluster()) {
            NeptuneNode client = own.add("client", ClientConfig.defaults(), b -> b);
            own.awaitNodes(1);
            NeptuneHandle handle = NeptuneHandle.create();
            JournalTestService.Appended first = append(client, handle, "first");
            String entry = "{\"lsn\":%d,\"epoch\":1,\"method\":\"append\",\"idHigh\":1,\"idLow\":1,\"origin\":\"x\","
                    + "\"originSeq\":0,\"payload\":\"e30=\",\"kind\":null}";
            for (String payload : List.of(
                    "{\"service\":\"journal\",\"partition\":0,\"from\":\"x\",\"epoch\":9223372036854775807,"
                            + "\"commitLsn\":0,\"entries\":null,\"prevLsn\":0,\"prevEpoch\":0,\"prevOrigin\":null}",
                    "{\"service\":\"journal\",\"partition\":0,\"from\":\"x\",\"epoch\":5,\"commitLsn\":0,\"entries\":["
                            + String.format(entry, 1) + "," + String.format(entry, 3) + "],\"prevLsn\":0,\"prevEpoch\":0,"
                            + "\"prevOrigin\":null}")) {
                RequestMessage bad = new RequestMessage(9, "$replication", 0, "replicate", AccessMode.WRITE, 5000, 0,
                        RequestId.NONE, payload.getBytes(StandardCharsets.UTF_8));
                ResponseMessage answer = answerTo(own.node(0), bad);
                assertThat(answer.status()).as(payload).isEqualTo(Status.INVALID_REQUEST);
                assertThat(answer.errorMessage()).startsWith("bad replication message replicate for journal#0");
            }
            JournalTestService.Appended next = append(client, handle, "next");
            assertThat(next.lsn()).as("still the primary of its epoch: the next LSN").isEqualTo(first.lsn() + 1);
        }
    }

    /**
     * A batch of peer messages (the heartbeats of many partitions in one frame) is checked whole before
     * any of its messages is handed out: one malformed item refuses the batch, and the valid replicate
     * beside it, from a newer epoch, does not depose the primary.
     */
    @Test
    void aMalformedBatchIsRefusedWholeBeforeAnyOfItsMessagesIsHandled() throws Exception {
        try (MiniCluster own = journalCluster()) {
            NeptuneNode client = own.add("client", ClientConfig.defaults(), b -> b);
            own.awaitNodes(1);
            NeptuneHandle handle = NeptuneHandle.create();
            JournalTestService.Appended first = append(client, handle, "first");
            String newerEpoch = "{\"service\":\"journal\",\"partition\":0,\"from\":\"x\",\"epoch\":1000,"
                    + "\"commitLsn\":0,\"entries\":[],\"prevLsn\":0,\"prevEpoch\":0,\"prevOrigin\":null}";
            for (String badItem : List.of("{\"partition\":-1,\"method\":\"replicate\",\"message\":" + newerEpoch + "}",
                    "{\"partition\":0,\"method\":\"replicate\"}", "{\"partition\":\"0\",\"method\":\"replicate\","
                            + "\"message\":" + newerEpoch + "}")) {
                String batch = "{\"items\":[{\"partition\":0,\"method\":\"replicate\",\"message\":" + newerEpoch + "},"
                        + badItem + "]}";
                ResponseMessage answer = answerTo(own.node(0), peerBatch(batch));
                assertThat(answer.status()).as(badItem).isEqualTo(Status.INVALID_REQUEST);
                assertThat(answer.errorMessage()).as(badItem).startsWith("bad replication batch: item 1: ");
            }
            for (String items : List.of("[]", "{}", "null")) {
                ResponseMessage answer = answerTo(own.node(0), peerBatch("{\"items\":" + items + "}"));
                assertThat(answer.status()).as(items).isEqualTo(Status.INVALID_REQUEST);
                assertThat(answer.errorMessage()).as(items).startsWith("bad replication batch: items: ")
                        .endsWith("(expected: an array of 1..256)");
            }
            JournalTestService.Appended next = append(client, handle, "next");
            assertThat(next.lsn()).as("still the primary of its epoch: the next LSN").isEqualTo(first.lsn() + 1);
        }
    }

    /** Each message of a batch is answered as if it came alone, in the batch's order. */
    @Test
    void eachMessageOfABatchIsAnsweredAsIfItCameAlone() throws Exception {
        try (MiniCluster own = journalCluster()) {
            own.awaitNodes(1);
            String batch = "{\"items\":["
                    + "{\"partition\":0,\"method\":\"status\",\"message\":{\"service\":\"journal\",\"partition\":0}},"
                    + "{\"partition\":0,\"method\":\"status\",\"message\":{\"service\":\"nope\",\"partition\":0}},"
                    + "{\"partition\":0,\"method\":\"replicate\",\"message\":{\"service\":\"journal\",\"partition\":0}}]}";
            ResponseMessage answer = answerTo(own.node(0), peerBatch(batch));

            assertThat(answer.status()).isEqualTo(Status.OK);
            JsonNode answers = Json.mapper().readTree(answer.payload()).path("answers");
            assertThat(answers).hasSize(3);
            assertThat(answers.get(0).path("status").asText()).isEqualTo("OK");
            assertThat(answers.get(0).path("reply").path("node").asText()).isEqualTo(own.node(0).node().value());
            assertThat(answers.get(1).path("status").asText()).isEqualTo("NOT_HOSTED");
            assertThat(answers.get(1).path("error").asText()).endsWith("has no replica of nope#0");
            assertThat(answers.get(2).path("status").asText()).isEqualTo("INVALID_REQUEST");
            assertThat(answers.get(2).path("error").asText()).startsWith("bad replication message replicate for journal#0");
        }
    }

    /**
     * Node commands read their numbers with Jackson's lenient coercion: {@code "timeoutMillis":true}
     * was a 1 ms drain (the node handed its primaries away and stopped) and partition 4294967296 was
     * partition 0. A wrong type or range is refused, naming the field, and nothing happens.
     */
    @Test
    void aNodeCommandWithAWrongTypeIsRefusedAndDoesNothing() throws Exception {
        try (MiniCluster own = journalCluster()) {
            NeptuneNode target = own.node(0);
            Map<String, String> commands = Map.of(
                    "drain", "{\"timeoutMillis\":true}",
                    "host", "{\"service\":\"journal\",\"partition\":4294967296}",
                    "unhost", "{\"service\":\"journal\",\"partition\":1.9}");
            for (Map.Entry<String, String> command : commands.entrySet()) {
                RequestMessage bad = new RequestMessage(3, "$node", 0, command.getKey(), AccessMode.WRITE, 5000, 0,
                        RequestId.NONE, command.getValue().getBytes(StandardCharsets.UTF_8));
                ResponseMessage answer = answerTo(target, bad);
                assertThat(answer.status()).as(command.toString()).isEqualTo(Status.INVALID_REQUEST);
                assertThat(answer.errorMessage()).startsWith("bad " + command.getKey() + " request: ")
                        .contains("expected: an integer from");
            }
            assertThat(target.admin().replicas("journal", 1).get(30, TimeUnit.SECONDS)).as("journal#1 still hosted")
                    .isNotEmpty();
            // a drain, even of 1 ms, would have closed the node
            org.awaitility.Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .until(target::isRunning);
        }
    }

    /**
     * The directory a thin client reads: the page lists the node itself, and a method it does not
     * know is refused by name.
     */
    @Test
    void theDirectoryAnswersItsPageAndRefusesAnyOtherMethod() throws Exception {
        RequestMessage page = new RequestMessage(5, "$directory", 0, "page", AccessMode.READ, 5000, 0, RequestId.NONE,
                "{}".getBytes(StandardCharsets.UTF_8));
        ResponseMessage answer = answerTo(node, page);
        assertThat(answer.status()).as(answer.errorMessage()).isEqualTo(Status.OK);
        io.neptune.core.internal.membership.DirectoryPage decoded = Json.mapper().readValue(answer.payload(),
                io.neptune.core.internal.membership.DirectoryPage.class);
        assertThat(decoded.node()).isEqualTo(node.node().value());
        assertThat(decoded.announcements()).extracting(a -> a.node()).contains(node.node().value());

        RequestMessage other = new RequestMessage(6, "$directory", 0, "everything", AccessMode.READ, 5000, 0,
                RequestId.NONE, "{}".getBytes(StandardCharsets.UTF_8));
        ResponseMessage refused = answerTo(node, other);
        assertThat(refused.status()).isEqualTo(Status.UNKNOWN_METHOD);
        assertThat(refused.errorMessage()).isEqualTo("directory method 'everything' (expected: page)");
    }

    /** A partition no node can have, sent to a node hosting none of the service: not NOT_HOSTED ("try elsewhere"). */
    @Test
    void aPartitionOutOfRangeIsUnknownAlsoOnANodeThatHostsNoneOfTheService() throws Exception {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> clientNode.replicaRoles("echo", 0).containsKey(node.node()));
        RequestMessage request = new RequestMessage(4, "echo", 999, "echo", AccessMode.READ, 5000, 0, RequestId.NONE,
                Json.mapper().writeValueAsBytes(new Echo("x")));
        ResponseMessage answer = answerTo(clientNode, request);
        assertThat(answer.status()).as(answer.errorMessage()).isEqualTo(Status.UNKNOWN_PARTITION);
        assertThat(answer.errorMessage()).contains("partition: 999");
    }

    @Test
    void requestOfTheWrongTypeIsAnInvalidRequestException() {
        NeptuneClient client = clientNode.client();

        // {"millis":5} where the echo method expects {"text": ...}
        assertThatThrownBy(() -> client.call(NeptuneHandle.create(), "echo", 1, "echo", AccessMode.READ,
                new Sleep(5), Reply.class))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("echo#1.echo")
                .hasMessageContaining("as Echo");
        assertThatThrownBy(() -> node.client().call(NeptuneHandle.create(), "echo", 1, "echo", AccessMode.READ,
                List.of(1, 2, 3), Reply.class))
                .as("the in-process path answers the same")
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("as Echo");
    }

    // ---------------------------------------------------------------- deadline

    @Test
    void callOutlivingItsTimeoutFailsWithDeadlineExceeded() {
        Duration timeout = Duration.ofMillis(300);
        long start = System.nanoTime();

        assertThatThrownBy(() -> clientNode.client().call(NeptuneHandle.create(), "echo", 2, "sleep", AccessMode.READ,
                new Sleep(2000), Reply.class, CallOptions.timeout(timeout)))
                .isInstanceOf(DeadlineExceededException.class)
                .hasMessageContaining("echo#2.sleep")
                .satisfies(e -> assertThat(((DeadlineExceededException) e).deadline()).isEqualTo(timeout));

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
    }

    // ---------------------------------------------------------------- queue overflow

    @Test
    void fullQueueRefusesCallsAsOverloadedAndNothingHangs() {
        HostingConfig tiny = HostingConfig.builder().workers(1).queueCapacity(1).build();
        try (MiniCluster own = MiniCluster.start(1, b -> b.host(new EchoTestService(), tiny))) {
            NeptuneNode client = own.add("client", ClientConfig.defaults(), b -> b);
            own.awaitNodes(1);
            CallOptions options = CallOptions.builder()
                    .policy(BalancingPolicy.RANDOM)
                    .timeout(Duration.ofSeconds(20))
                    .build();

            List<CompletableFuture<Reply>> calls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                calls.add(client.client().callAsync(NeptuneHandle.create(), "echo", 0, "sleep", AccessMode.READ,
                        new Sleep(500), Reply.class, options));
            }

            int ok = 0;
            List<Throwable> failures = new ArrayList<>();
            for (CompletableFuture<Reply> call : calls) {
                try {
                    assertThat(call.get(10, TimeUnit.SECONDS).text()).isEqualTo("slept");
                    ok++;
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause());
                } catch (java.util.concurrent.TimeoutException | InterruptedException e) {
                    throw new AssertionError("a call hung", e);
                }
            }

            assertThat(ok).as("the running and the queued call succeed").isBetween(1, 2);
            assertThat(failures).hasSize(6 - ok).isNotEmpty().allSatisfy(e -> assertThat(e)
                    .isInstanceOf(OverloadedException.class)
                    .hasMessageContaining("queue full")
                    .satisfies(o -> assertThat(((OverloadedException) o).node().value()).isEqualTo("node-0")));
        }
    }

    // ---------------------------------------------------------------- helpers

    /** One node hosting the level-2 journal with 1 replica: the primary of every partition. */
    private static MiniCluster journalCluster() {
        return MiniCluster.start(1, b -> b.host(new JournalTestService(), HostingConfig.builder().replicas(1).build()));
    }

    /** Appends {@code text} to journal#0 through {@code client}'s session {@code handle}. */
    private static JournalTestService.Appended append(NeptuneNode client, NeptuneHandle handle, String text) {
        return client.client().call(handle, "journal", 0, "append", AccessMode.WRITE, new JournalTestService.Append(text),
                JournalTestService.Appended.class, CallOptions.timeout(Duration.ofSeconds(20)));
    }

    private static RequestMessage peerBatch(String json) {
        return new RequestMessage(9, "$replication", 0, "batch", AccessMode.WRITE, 5000, 0, RequestId.NONE,
                json.getBytes(StandardCharsets.UTF_8));
    }

    private static RequestMessage echoRequest(long id, String text) {
        try {
            return new RequestMessage(id, "echo", 0, "echo", AccessMode.READ, 5000, 0, RequestId.NONE,
                    Json.mapper().writeValueAsBytes(new Echo(text)));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static RequestMessage repeatRequest(long id, String text, int times) {
        try {
            return new RequestMessage(id, "echo", 0, "repeat", AccessMode.READ, 60_000, 0, RequestId.NONE,
                    Json.mapper().writeValueAsBytes(new EchoTestService.Repeat(text, times)));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] encode(io.neptune.core.internal.wire.Message message) {
        return WireFrames.bytes(message);
    }

    private static byte[] prefixed(byte[] body) {
        byte[] frame = new byte[4 + body.length];
        setInt(frame, 0, body.length);
        System.arraycopy(body, 0, frame, 4, body.length);
        return frame;
    }

    private static void setInt(byte[] bytes, int offset, int value) {
        bytes[offset] = (byte) (value >>> 24);
        bytes[offset + 1] = (byte) (value >>> 16);
        bytes[offset + 2] = (byte) (value >>> 8);
        bytes[offset + 3] = (byte) value;
    }

    /** Sends {@code request} over a connection of its own to {@code target} and returns the answer. */
    private static ResponseMessage answerTo(NeptuneNode target, RequestMessage request) throws IOException {
        try (Socket socket = connect(target)) {
            send(socket, encode(request));
            return readResponse(socket);
        }
    }

    private static Socket connect(NeptuneNode target) throws IOException {
        Socket socket = new Socket();
        socket.connect(target.requestAddress(), (int) SOCKET_TIMEOUT.toMillis());
        socket.setSoTimeout((int) SOCKET_TIMEOUT.toMillis());
        return socket;
    }

    private static void send(Socket socket, byte[] bytes) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    /** Reads one length-prefixed frame and decodes it with the production decoder. */
    private static ResponseMessage readResponse(Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length = in.readInt();
        assertThat(length).isBetween(WireFormat.HEADER_BYTES, 1 << 20);
        byte[] body = new byte[length];
        in.readFully(body);
        ByteBuf buf = Unpooled.wrappedBuffer(body);
        try {
            return (ResponseMessage) MessageDecoder.decode(buf);
        } finally {
            buf.release();
        }
    }

    private static void assertProtocolError(ResponseMessage answer, String problem) {
        assertThat(answer.status()).as(answer.errorMessage()).isEqualTo(Status.PROTOCOL_ERROR);
        assertThat(answer.errorMessage()).startsWith(answer.requestId() == 0 ? "bad frame: " : "").contains(problem);
    }

    private static void assertClosedByServer(Socket socket) throws IOException {
        assertThat(socket.getInputStream().read()).as("end of stream after the protocol error").isEqualTo(-1);
    }

    /**
     * Sends {@code frame} on a fresh connection while another connection to the same node stays
     * open; expects a PROTOCOL_ERROR naming {@code problem}, then end of stream, and the other
     * connection and a client call still served.
     */
    private static ResponseMessage assertRejectedAndClosed(NeptuneNode target, byte[] frame, String problem)
            throws Exception {
        try (Socket bystander = connect(target); Socket socket = connect(target)) {
            send(bystander, encode(echoRequest(1, "before")));
            assertThat(readResponse(bystander).status()).isEqualTo(Status.OK);

            send(socket, frame);
            ResponseMessage answer = readResponse(socket);
            assertProtocolError(answer, problem);
            assertClosedByServer(socket);

            send(bystander, encode(echoRequest(2, "after")));
            ResponseMessage after = readResponse(bystander);
            assertThat(after.requestId()).isEqualTo(2);
            assertThat(after.status()).isEqualTo(Status.OK);
            assertNodeStillServes(target);
            return answer;
        }
    }

    private static void assertNodeStillServes(NeptuneNode target) throws Exception {
        Reply reply = call(clientNode.client(), "still there");
        assertThat(reply.text()).isEqualTo("still there");
        assertThat(call(target.client(), "local").text()).isEqualTo("local");
    }

    private static Reply call(NeptuneClient client, String text) throws Exception {
        return client.callAsync(NeptuneHandle.create(), "echo", 3, "echo", AccessMode.READ, new Echo(text),
                Reply.class).get(10, TimeUnit.SECONDS);
    }
}
