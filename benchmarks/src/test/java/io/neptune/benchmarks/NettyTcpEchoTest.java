package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The raw Netty floor on loopback: every echo answers its own request, over one connection and over
 * several, whether the calls come from other threads or from the completions of earlier calls.
 * Requests of distinct lengths tell the echoes apart (the echo completes with the length it got back).
 */
class NettyTcpEchoTest {
    @Test
    void everyEchoAnswersItsOwnRequestOverSeveralConnections() {
        try (NettyTcpEcho echo = new NettyTcpEcho(new byte[39], 2)) {
            assertThat(echo.connections()).isEqualTo(2);
            List<CompletableFuture<Integer>> replies = new ArrayList<>();
            for (int length = 1; length <= 500; length++) { // round robin over both connections, all outstanding
                replies.add(echo.roundTripAsync(new byte[length]));
            }
            for (int i = 0; i < replies.size(); i++) {
                assertThat(NettyTcpEcho.await(replies.get(i))).as("echo of request %d", i).isEqualTo(i + 1);
            }
            assertThat(echo.roundTrip()).isEqualTo(39);
        }
    }

    @Test
    void callsSentFromCompletionsAreMatchedOnTheConnectionTheyWentOutOn() throws Exception {
        try (NettyTcpEcho echo = new NettyTcpEcho(new byte[39], 2)) {
            ConcurrentLinkedQueue<String> mismatches = new ConcurrentLinkedQueue<>();
            List<CompletableFuture<Void>> chains = new ArrayList<>();
            for (int caller = 0; caller < 16; caller++) {
                chains.add(chain(echo, caller * 100 + 1, 50, mismatches));
            }
            CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(mismatches).isEmpty();
        }
    }

    @Test
    void oneConnectionIsTheDefaultAndNoneIsRejected() {
        try (NettyTcpEcho echo = new NettyTcpEcho(new byte[39])) {
            assertThat(echo.connections()).isEqualTo(1);
            assertThat(echo.roundTrip()).isEqualTo(39);
        }
        assertThatThrownBy(() -> new NettyTcpEcho(new byte[1], 0)).hasMessage("connections: 0 (expected: >= 1)");
    }

    /** {@code calls} calls one after another, each sent from the previous one's completion, of lengths from {@code first}. */
    private static CompletableFuture<Void> chain(NettyTcpEcho echo, int first, int calls,
            ConcurrentLinkedQueue<String> mismatches) {
        if (calls == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return echo.roundTripAsync(new byte[first]).thenCompose(length -> {
            if (length != first) {
                mismatches.add("sent " + first + " B, echo " + length + " B");
            }
            return chain(echo, first + 1, calls - 1, mismatches);
        });
    }
}
