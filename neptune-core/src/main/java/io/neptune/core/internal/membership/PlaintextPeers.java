package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The JGroups peers, by socket address, that a node with TLS {@code permissive} found speaking
 * plaintext (a node with TLS {@code disabled}): connections to them skip the TLS attempt for
 * {@link #MEMORY}. A peer is forgotten earlier when a plaintext connection to it shows it speaks
 * TLS (a node with TLS {@code required} ends one without a byte, or with a TLS alert), so a peer
 * restarted at the same address with TLS is reached over TLS again at the next connection.
 *
 * <p>Thread-safety: thread-safe.
 */
final class PlaintextPeers {
    /** How long a peer found speaking plaintext is remembered: a minute. */
    static final Duration MEMORY = Duration.ofMinutes(1);
    /** The most peers remembered; the eldest is forgotten beyond. */
    static final int MAX_PEERS = 10_000;

    private final LongSupplier nanoTime;
    /** Until when (in {@link #nanoTime}) each peer is remembered; guarded by itself. */
    private final Map<InetSocketAddress, Long> until = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<InetSocketAddress, Long> eldest) {
            return size() > MAX_PEERS;
        }
    };

    PlaintextPeers(LongSupplier nanoTime) {
        this.nanoTime = requireNonNull(nanoTime, "nanoTime");
    }

    /** Whether {@code peer} was found speaking plaintext within the last {@link #MEMORY}. */
    boolean contains(InetSocketAddress peer) {
        long now = nanoTime.getAsLong();
        synchronized (until) {
            Long end = until.get(peer);
            if (end == null) {
                return false;
            }
            if (now - end >= 0) {
                until.remove(peer);
                return false;
            }
            return true;
        }
    }

    /** Remembers that {@code peer} speaks plaintext, for {@link #MEMORY} from now. */
    void add(InetSocketAddress peer) {
        long end = nanoTime.getAsLong() + MEMORY.toNanos();
        synchronized (until) {
            until.put(requireNonNull(peer, "peer"), end);
        }
    }

    /** Forgets {@code peer}: the next connection to it tries TLS first. */
    void remove(InetSocketAddress peer) {
        synchronized (until) {
            until.remove(peer);
        }
    }
}
