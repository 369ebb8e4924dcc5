package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * A secret every node and client of a cluster shares, read from a file ({@link #fromFile}) or an
 * environment variable ({@link #fromEnvironment}), never from a config file's text. It is not used
 * itself: each use derives its own key ({@link #deriveKey}); today that is the MAC of load-poll
 * replies (docs/SECURITY.md, Load polls). Immutable.
 *
 * <p>Nothing prints the secret: {@link #toString()} names where it came from, and so does the
 * node's start-up config log. Two secrets are equal when they came from the same place and hold
 * the same bytes (compared in constant time).
 */
public final class ClusterSecret {
    /** The config key that names the secret's file, as error messages name it. */
    public static final String FILE_KEY = "security.cluster-secret-file";
    /** The environment variable that may hold the secret instead. */
    public static final String ENVIRONMENT_VARIABLE = "NEPTUNE_CLUSTER_SECRET";
    /** The fewest bytes a secret may have, after surrounding white space is removed. */
    public static final int MIN_BYTES = 16;

    private static final int KEY_BYTES = 32;
    private static final String HMAC = "HmacSHA256";
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final byte[] secret;
    private final @Nullable Path file;

    private ClusterSecret(byte[] secret, @Nullable Path file) {
        this.secret = secret;
        this.file = file;
    }

    /**
     * The secret in {@code file}: its bytes without leading and trailing spaces, tabs, CRs and LFs
     * (so {@code head -c 32 /dev/urandom | base64 > secret} gives a 44-byte secret).
     *
     * @throws ConfigException naming {@value #FILE_KEY} if the file cannot be read, holds fewer than
     *     {@value #MIN_BYTES} bytes, or grants group or others any permission (on a file system with
     *     POSIX permissions)
     */
    public static ClusterSecret fromFile(Path file) {
        requireNonNull(file, "file");
        byte[] content;
        try {
            checkPermissions(file);
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(FILE_KEY, "'" + file + "' cannot be read (" + e.getClass().getSimpleName()
                    + ": " + e.getMessage() + ")");
        }
        byte[] secret = trim(content);
        Arrays.fill(content, (byte) 0);
        if (secret.length < MIN_BYTES) {
            throw new ConfigException(FILE_KEY, "'" + file + "' holds " + secret.length + " bytes (expected: >= "
                    + MIN_BYTES + ", such as the output of: head -c 32 /dev/urandom | base64)");
        }
        return new ClusterSecret(secret, file);
    }

    /** {@link #fromEnvironment(Map)} of this process's environment. */
    public static Optional<ClusterSecret> fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /**
     * The secret in {@value #ENVIRONMENT_VARIABLE} of {@code environment}, trimmed like a file's;
     * empty if the variable is not set.
     *
     * @throws ConfigException naming {@value #ENVIRONMENT_VARIABLE} if it holds fewer than {@value #MIN_BYTES} bytes
     */
    public static Optional<ClusterSecret> fromEnvironment(Map<String, String> environment) {
        String value = environment.get(ENVIRONMENT_VARIABLE);
        if (value == null) {
            return Optional.empty();
        }
        byte[] secret = trim(value.getBytes(StandardCharsets.UTF_8));
        if (secret.length < MIN_BYTES) {
            throw new ConfigException(ENVIRONMENT_VARIABLE, secret.length + " bytes (expected: >= " + MIN_BYTES
                    + ", such as the output of: head -c 32 /dev/urandom | base64)");
        }
        return Optional.of(new ClusterSecret(secret, null));
    }

    /** The file the secret was read from; empty if it came from {@value #ENVIRONMENT_VARIABLE}. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /**
     * A 32-byte key for one use of the secret: HKDF-SHA256 (RFC 5869) of the secret with a salt of
     * 32 zero bytes and {@code label} (UTF-8) as the info. Different labels give independent keys,
     * and a key tells nothing about the secret or about another label's key.
     */
    public byte[] deriveKey(String label) {
        requireNonNull(label, "label");
        try {
            Mac extract = Mac.getInstance(HMAC);
            extract.init(new SecretKeySpec(new byte[KEY_BYTES], HMAC));
            byte[] pseudoRandomKey = extract.doFinal(secret);
            Mac expand = Mac.getInstance(HMAC);
            expand.init(new SecretKeySpec(pseudoRandomKey, HMAC));
            Arrays.fill(pseudoRandomKey, (byte) 0);
            expand.update(label.getBytes(StandardCharsets.UTF_8));
            expand.update((byte) 1);
            return expand.doFinal(); // one block of output: exactly KEY_BYTES
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(HMAC + ": unavailable (expected: in every Java runtime)", e);
        }
    }

    /** Refuses a file that group or others may read or change: the secret would not be one. */
    private static void checkPermissions(Path file) throws IOException {
        if (!file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return; // e.g. Windows: its ACLs are the operator's to set
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
        if (permissions.stream().anyMatch(GROUP_OR_OTHERS::contains)) {
            throw new ConfigException(FILE_KEY, "'" + file + "' has permissions "
                    + PosixFilePermissions.toString(permissions) + " (expected: none for group and others, such as"
                    + " rw------- or r--------: chmod 600 it)");
        }
    }

    private static byte[] trim(byte[] bytes) {
        int from = 0;
        int to = bytes.length;
        while (from < to && isSpace(bytes[from])) {
            from++;
        }
        while (to > from && isSpace(bytes[to - 1])) {
            to--;
        }
        return Arrays.copyOfRange(bytes, from, to);
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof ClusterSecret that && Objects.equals(file, that.file)
                && MessageDigest.isEqual(secret, that.secret);
    }

    /** Hashes where the secret came from, not its bytes. */
    @Override
    public int hashCode() {
        return Objects.hashCode(file);
    }

    /** Where the secret came from; never the secret. */
    @Override
    public String toString() {
        return "ClusterSecret[" + (file != null ? "file " + file : "environment " + ENVIRONMENT_VARIABLE)
                + ", redacted]";
    }
}
