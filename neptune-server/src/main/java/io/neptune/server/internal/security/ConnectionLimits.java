package io.neptune.server.internal.security;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Caps on the request port's open connections, over all peers and per peer address, and on the
 * streams open on one connection: a connection over either cap is closed as it is accepted,
 * before its first byte is read (or a TLS handshake spends any work on it), and counted; each
 * admitted connection gives its place back when it closes. A stream over its connection's cap is
 * refused (the caller answers it) and counted.
 *
 * <p>Thread-safety: thread-safe; {@link #admit} runs on the accepting event loops.
 */
public final class ConnectionLimits {
    private final int maxConnections;
    private final int maxPerAddress;
    private final int maxStreamsPerConnection;
    private final LongAdder refusedStreams = new LongAdder();
    private final AtomicInteger open = new AtomicInteger();
    private final Map<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();
    private final LongAdder refused = new LongAdder();

    /**
     * Caps of {@code maxConnections} in all, {@code maxPerAddress} from one address and
     * {@code maxStreamsPerConnection} streams open on one connection.
     */
    public ConnectionLimits(int maxConnections, int maxPerAddress, int maxStreamsPerConnection) {
        if (maxConnections < 1 || maxPerAddress < 1 || maxStreamsPerConnection < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + ", maxPerAddress: " + maxPerAddress
                    + ", maxStreamsPerConnection: " + maxStreamsPerConnection + " (expected: all >= 1)");
        }
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
        this.maxStreamsPerConnection = maxStreamsPerConnection;
    }

    /**
     * Why a connection with {@code open} streams open may not open one more, or null if it may;
     * a refusal is counted.
     */
    public @Nullable String refusesStream(int open) {
        if (open < maxStreamsPerConnection) {
            return null;
        }
        refusedStreams.increment();
        return "NEP-SEC-014 streams open on this connection: " + open + " (expected: fewer than"
                + " max-streams-per-connection, " + maxStreamsPerConnection + "; end one first)";
    }

    /** Streams refused for being over their connection's cap. */
    public long refusedStreams() {
        return refusedStreams.sum();
    }

    /**
     * Whether {@code channel}, just accepted, may stay open; if so its place is taken until it
     * closes, else it is counted and the caller closes it.
     */
    public boolean admit(Channel channel) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            refused.increment();
            return false;
        }
        InetAddress address = address(channel.remoteAddress());
        if (address != null && !takePlace(address)) {
            open.decrementAndGet();
            refused.increment();
            return false;
        }
        channel.closeFuture().addListener(f -> {
            open.decrementAndGet();
            if (address != null) {
                byAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
            }
        });
        return true;
    }

    /** Counts one more connection from {@code address} unless it has its cap already. */
    private boolean takePlace(InetAddress address) {
        boolean[] taken = {false};
        byAddress.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= maxPerAddress) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    private static @Nullable InetAddress address(@Nullable SocketAddress remote) {
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /** Connections closed at accept for being over a cap. */
    public long refused() {
        return refused.sum();
    }
}
