package io.neptune.core.internal.membership;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The plain socket under a {@link PermissiveClientSocket}: it tells whether its peer ended the
 * connection before sending a byte (a close or a reset, not a timeout, and not a close of ours),
 * and whether the first byte it sent starts a TLS record: what a TLS peer sends to a plaintext
 * connection, if anything. A TLS socket layered over it reads through it too, so a TLS handshake
 * the peer closed without a byte is seen here.
 *
 * <p>Thread-safety: as {@link Socket}; the stream is read by one thread at a time.
 */
final class WatchedSocket extends Socket {
    /** The first byte of a TLS alert record. */
    private static final int TLS_ALERT_RECORD = 0x15;

    private final AtomicLong received = new AtomicLong();
    private volatile boolean endedByPeer;
    private volatile boolean closingLocally;
    private volatile @Nullable Runnable onTlsPeer;
    private @Nullable InputStream in; // guarded by this

    /**
     * Runs {@code action} once if the peer turns out to speak TLS on this plaintext connection:
     * it ends it without a byte, or its first byte starts a TLS record (an alert).
     */
    void onTlsPeer(Runnable action) {
        onTlsPeer = action;
    }

    /** Whether the peer ended the connection (a close or a reset) before sending a byte. */
    boolean endedSilently() {
        return endedByPeer && received.get() == 0;
    }

    /** Notes that this side closes the connection: what the stream sees next is not the peer's doing. */
    void closingLocally() {
        closingLocally = true;
    }

    @Override
    public synchronized InputStream getInputStream() throws IOException {
        InputStream watched = in;
        if (watched == null) {
            watched = new Watching(super.getInputStream());
            in = watched;
        }
        return watched;
    }

    private void ended() {
        if (closingLocally || endedByPeer) {
            return;
        }
        endedByPeer = true;
        if (received.get() == 0) {
            tlsPeer();
        }
    }

    private void arrived(int firstByte, int count) {
        if (received.getAndAdd(count) == 0
                && (firstByte == TLS_ALERT_RECORD || firstByte == PermissiveServerSocket.TLS_HANDSHAKE_RECORD)) {
            tlsPeer();
        }
    }

    private void tlsPeer() {
        Runnable action = onTlsPeer;
        onTlsPeer = null;
        if (action != null) {
            action.run();
        }
    }

    /** Counts what arrives and notes how the stream ended. */
    private final class Watching extends FilterInputStream {
        Watching(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = watch(() -> super.read());
            if (b >= 0) {
                arrived(b, 1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = watch(() -> super.read(b, off, len));
            if (n > 0) {
                arrived(b[off] & 0xFF, n);
            }
            return n;
        }

        private int watch(Read read) throws IOException {
            int n;
            try {
                n = read.run();
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                ended();
                throw e;
            }
            if (n < 0) {
                ended();
            }
            return n;
        }
    }

    @FunctionalInterface
    private interface Read {
        int run() throws IOException;
    }
}
