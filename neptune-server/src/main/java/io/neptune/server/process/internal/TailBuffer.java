package io.neptune.server.process.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The last bytes read from a stream: a program's stderr, kept so that a failure can quote its end
 * while the pipe never fills up and blocks the program.
 *
 * <p>Thread-safety: thread-safe; one thread {@linkplain #drain drains}, any thread reads the tail.
 */
final class TailBuffer {
    private final byte[] ring;
    private long written;

    TailBuffer(int capacity) {
        this.ring = new byte[capacity];
    }

    /** Reads {@code in} to its end (or until it fails, as when the process is killed), keeping the tail. */
    void drain(InputStream in) {
        byte[] chunk = new byte[4096];
        try (in) {
            for (int n; (n = in.read(chunk)) >= 0; ) {
                append(chunk, n);
            }
        } catch (IOException e) {
            // the stream was closed under us: keep what arrived
        }
    }

    private synchronized void append(byte[] chunk, int length) {
        for (int i = 0; i < length; i++) {
            ring[(int) (written++ % ring.length)] = chunk[i];
        }
    }

    /** The kept bytes, oldest first. */
    synchronized byte[] bytes() {
        if (written <= ring.length) {
            return Arrays.copyOf(ring, (int) written);
        }
        int start = (int) (written % ring.length);
        byte[] out = new byte[ring.length];
        System.arraycopy(ring, start, out, 0, ring.length - start);
        System.arraycopy(ring, 0, out, ring.length - start, start);
        return out;
    }

    /** The kept bytes as UTF-8 text. */
    String text() {
        return new String(bytes(), StandardCharsets.UTF_8);
    }
}
