package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin port against clients that misbehave, over real sockets: one that sends many requests
 * and reads no answer, and one that stops part-way through a request.
 */
class AdminServerTest {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);
    private static final int SOCKET_TIMEOUT_MILLIS = 10_000;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final NodeMetrics metrics = NodeMetrics.own(NodeId.of("n1"));
    private final AtomicInteger rendered = new AtomicInteger();
    /** About 850 KiB of JSON per /health/ready answer. */
    private final Health bigHealth = bigHealth();
    private final AdminServer server = new AdminServer(NodeId.of("n1"), group, "127.0.0.1", 0,
            AdminServer.Settings.of(REQUEST_TIMEOUT),
            metrics, () -> {
                rendered.incrementAndGet();
                return bigHealth;
            });

    @AfterEach
    void close() {
        server.close();
        metrics.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aClientThatReadsNoAnswerHasOneRenderedAtATimeNotOnePerRequest() throws Exception {
        int requests = 100; // 85 MiB of answers if each were rendered on arrival (Netty refuses more than 128)
        byte[] request = "GET /health/ready HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        try (Socket socket = connect()) {
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    for (int i = 0; i < requests; i++) {
                        out.write(request);
                    }
                    out.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> rendered.get() > 0);
            // what the sockets' buffers hold between them, and no more, until the client reads
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> rendered.get() < 30);

            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            for (int i = 0; i < requests; i++) {
                assertThat(readStatusAndSkipBody(in)).isEqualTo("HTTP/1.1 503 Service Unavailable");
            }
            sent.get(30, TimeUnit.SECONDS);
        }
        assertThat(rendered.get()).isEqualTo(requests);
    }

    @Test
    void aRequestThatStopsPartWayIsAnswered408AndClosedAtTheRequestTimeout() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /health/li".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long start = System.nanoTime();

            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(readStatusAndSkipBody(in)).isEqualTo("HTTP/1.1 408 Request Timeout");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(REQUEST_TIMEOUT.minusMillis(50));
            assertThat(in.read()).as("closed by the server").isEqualTo(-1);
        }
        try (Socket socket = connect()) { // the port still serves
            socket.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(
                    StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(readStatusAndSkipBody(in)).isEqualTo("HTTP/1.1 200 OK");
        }
    }

    /** A request cut off in the read that brought a whole one is not on the request clock: idleness closes it. */
    @Test
    void aConnectionLeftWithPartOfARequestAfterAWholeOneIsClosedWhenIdle() throws Exception {
        try (Socket socket = connect()) {
            socket.getOutputStream().write("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\nGET /health/li".getBytes(
                    StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(readStatusAndSkipBody(in)).isEqualTo("HTTP/1.1 200 OK");

            assertThat(in.read()).as("closed by the server within twice the request timeout").isEqualTo(-1);
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(server.address().getAddress(), server.address().getPort());
        socket.setSoTimeout(SOCKET_TIMEOUT_MILLIS);
        return socket;
    }

    /** The status line of the next answer; its headers and body are read past. */
    private static String readStatusAndSkipBody(BufferedReader in) throws IOException {
        String status = in.readLine();
        int length = 0;
        for (String header = in.readLine(); header != null && !header.isEmpty(); header = in.readLine()) {
            if (header.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(header.substring("content-length:".length()).trim());
            }
        }
        char[] body = new char[length]; // the bodies are ASCII: a char is a byte
        for (int read = 0; read < length; ) {
            int n = in.read(body, read, length - read);
            if (n < 0) {
                throw new IOException("the answer ended inside its body");
            }
            read += n;
        }
        return status;
    }

    private static Health bigHealth() {
        List<Health.NotServing> replicas = new ArrayList<>();
        for (int i = 0; i < 12_000; i++) {
            replicas.add(new Health.NotServing("a-service-with-a-long-name", i, ReplicaRole.RECOVERING));
        }
        return new Health(true, replicas);
    }
}
