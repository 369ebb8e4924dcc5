package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PlaintextPeersTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 7800);
    private static final InetSocketAddress OTHER = new InetSocketAddress("127.0.0.1", 7801);

    private final AtomicLong now = new AtomicLong(-5); // nanoTime may be negative
    private final PlaintextPeers peers = new PlaintextPeers(now::get);

    @Test
    void aPeerIsRememberedForItsMemoryThenTriedWithTlsAgain() {
        peers.add(PEER);

        assertThat(peers.contains(PEER)).isTrue();
        assertThat(peers.contains(OTHER)).isFalse();
        now.addAndGet(PlaintextPeers.MEMORY.toNanos() - 1);
        assertThat(peers.contains(PEER)).as("just before the memory ends").isTrue();
        now.incrementAndGet();
        assertThat(peers.contains(PEER)).as("once it ended").isFalse();
    }

    @Test
    void aPeerFoundAgainIsRememberedFromThen() {
        peers.add(PEER);
        now.addAndGet(PlaintextPeers.MEMORY.toNanos() / 2);
        peers.add(PEER);
        now.addAndGet(PlaintextPeers.MEMORY.toNanos() / 2 + 1);

        assertThat(peers.contains(PEER)).isTrue();
    }

    @Test
    void aRemovedPeerIsTriedWithTlsAtOnce() {
        peers.add(PEER);
        peers.add(OTHER);

        peers.remove(PEER);

        assertThat(peers.contains(PEER)).isFalse();
        assertThat(peers.contains(OTHER)).isTrue();
    }

    @Test
    void theEldestPeerIsForgottenBeyondTheCap() {
        for (int port = 1; port <= PlaintextPeers.MAX_PEERS + 1; port++) {
            peers.add(new InetSocketAddress("127.0.0.1", port));
        }

        assertThat(peers.contains(new InetSocketAddress("127.0.0.1", 1))).isFalse();
        assertThat(peers.contains(new InetSocketAddress("127.0.0.1", PlaintextPeers.MAX_PEERS + 1))).isTrue();
    }
}
