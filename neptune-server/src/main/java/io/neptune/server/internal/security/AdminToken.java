package io.neptune.server.internal.security;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.tls.ReloadingFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer token the admin port asks of every route but {@code /health/*}: the content of the
 * file {@code admin-token-file} names, trimmed. The file is read at start (a file that cannot be
 * read or holds no token stops the start) and looked at again, at most once a second, as requests
 * arrive ({@link ReloadingFiles}); when it changed, its new token counts from then on. A change that
 * holds no token (a half-written file) keeps the previous one and is logged once.
 *
 * <p>Only a SHA-256 digest of the token is kept, and a presented token is compared with it in
 * constant time ({@link MessageDigest#isEqual} of the digests, so the length leaks nothing
 * either). Nothing here logs or prints the token; {@link #toString()} names the file.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class AdminToken {
    private static final Logger logger = LoggerFactory.getLogger(AdminToken.class);

    private static final String KEY = "admin-token-file";
    private static final String BEARER = "bearer ";

    private final NodeId node;
    private final Path file;
    /** The SHA-256 digest of the token. */
    private final ReloadingFiles<byte[]> token;

    /** What a request's {@code Authorization} header proves. */
    public enum Check {
        /** The right token. */
        GRANTED,
        /** No bearer token: answer 401 with {@code WWW-Authenticate: Bearer}. */
        MISSING,
        /** A bearer token, not the right one: answer 403. */
        WRONG
    }

    private AdminToken(NodeId node, Path file, LongSupplier nanoTime) {
        this.node = requireNonNull(node, "node");
        this.file = requireNonNull(file, "file");
        this.token = ReloadingFiles.read(Map.of(KEY, file), () -> digest(read()), new Listener(), nanoTime);
    }

    /**
     * The token in {@code file}.
     *
     * @throws ConfigException if the file cannot be read or holds only white space
     */
    public static AdminToken read(NodeId node, Path file) {
        return new AdminToken(node, file, System::nanoTime);
    }

    /** For tests: {@link #read} with its own clock. */
    static AdminToken read(NodeId node, Path file, LongSupplier nanoTime) {
        return new AdminToken(node, file, nanoTime);
    }

    /** Checks the value of a request's {@code Authorization} header, {@code null} if it has none. */
    public Check check(@Nullable String authorization) {
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
            return Check.MISSING;
        }
        byte[] presented = digest(authorization.substring(BEARER.length()).trim());
        return MessageDigest.isEqual(presented, current()) ? Check.GRANTED : Check.WRONG;
    }

    /** The digest of the token requests must present now (read anew first if the file changed). */
    private byte[] current() {
        return token.current();
    }

    private String read() {
        String token;
        try {
            token = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw unreadable(e);
        }
        if (token.isEmpty()) {
            throw new ConfigException(KEY, "'" + file + "' holds no token (expected: the token, alone in the file)");
        }
        return token;
    }

    /** Logs the reloads, never the token. */
    private final class Listener implements ReloadingFiles.ReloadListener<byte[]> {
        @Override
        public void reloaded(byte[] value) {
            logger.info("{}: NEP-SEC-060 {} changed: the admin port asks for its new token", node, file);
        }

        @Override
        public void kept(ConfigException problem) {
            logger.warn("{}: NEP-SEC-061 keeping the admin token read before: {}", node, problem.getMessage());
        }
    }

    private ConfigException unreadable(IOException e) {
        return new ConfigException(KEY, "'" + file + "' cannot be read (" + e.getClass().getSimpleName() + ": "
                + e.getMessage() + ")");
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256: missing (expected: in every Java runtime)", e);
        }
    }

    /** Names the file, never the token. */
    @Override
    public String toString() {
        return "AdminToken[" + file + "]";
    }
}
