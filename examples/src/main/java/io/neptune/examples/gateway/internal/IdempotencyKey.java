package io.neptune.examples.gateway.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@code Idempotency-Key} request header (the IETF httpapi draft of that name): a client that
 * sends a write again with the key it sent the first time, after a 504 or a lost connection, gets
 * the first write's answer instead of a second write.
 *
 * <p>The gateway keeps no table of keys. It turns the key into the write's Neptune request id, and
 * the replicas already run a write at most once per request id within their window of recent ids
 * (what {@link io.neptune.client.CallOptions.Builder#requestId(String)} documents). The id is a
 * hash of the key together with the caller, the method, the path and the body, so two callers'
 * keys never meet, and the same key on a different request is a different request (never answered
 * with another write's response).
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class IdempotencyKey {
    /** The header's name. */
    public static final String HEADER = "Idempotency-Key";
    /** The longest key accepted, in characters. */
    public static final int MAX_LENGTH = 255;
    private static final String EXPECTED = " (expected: 1 to " + MAX_LENGTH
            + " printable ASCII characters, such as a random UUID)";
    private static final byte[] DOMAIN = "neptune-gateway-idempotency-key-v1".getBytes(StandardCharsets.US_ASCII);

    private IdempotencyKey() {}

    /**
     * The request id for a request that carries {@code key} (empty when the header is absent).
     *
     * @throws HttpStatusException 400 if the key is empty, longer than {@link #MAX_LENGTH} or not
     *     printable ASCII; the message says which, without repeating the key
     */
    public static Optional<String> requestId(@Nullable String key, Caller caller, String method, List<String> path,
            byte[] body) {
        if (key == null) {
            return Optional.empty();
        }
        check(key);
        MessageDigest sha256 = sha256();
        update(sha256, DOMAIN);
        update(sha256, caller.name().getBytes(StandardCharsets.UTF_8));
        update(sha256, method.getBytes(StandardCharsets.US_ASCII));
        update(sha256, String.join("/", path).getBytes(StandardCharsets.UTF_8));
        update(sha256, key.getBytes(StandardCharsets.US_ASCII));
        update(sha256, body);
        byte[] id = Arrays.copyOf(sha256.digest(), 16);
        id[15] |= 1; // a request id is never all zeros
        return Optional.of(HexFormat.of().formatHex(id));
    }

    private static void check(String key) {
        if (key.isEmpty()) {
            throw HttpStatusException.badRequest(HEADER + ": empty" + EXPECTED);
        }
        if (key.length() > MAX_LENGTH) {
            throw HttpStatusException.badRequest(HEADER + ": " + key.length() + " characters" + EXPECTED);
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw HttpStatusException.badRequest(HEADER + ": character " + (int) c + " at index " + i + EXPECTED);
            }
        }
    }

    /** Adds {@code field} with its length first, so no two lists of fields hash the same bytes. */
    private static void update(MessageDigest digest, byte[] field) {
        digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(field.length).array());
        digest.update(field);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
