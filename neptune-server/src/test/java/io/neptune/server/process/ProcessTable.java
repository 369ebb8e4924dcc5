package io.neptune.server.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Finds the processes a test started, by a token in their environment (every descendant inherits
 * it, whichever process group or parent it ends up in), and waits for conditions on them.
 */
public final class ProcessTable {
    /** The environment variable that marks a test's processes. */
    public static final String TOKEN_VARIABLE = "NEPTUNE_TEST_TOKEN";

    private ProcessTable() {}

    /** A fresh token for one test. */
    public static String newToken() {
        return UUID.randomUUID().toString();
    }

    /** The pids of live (not zombie) processes whose environment holds {@code token}. */
    public static List<Long> withToken(String token) {
        byte[] needle = (TOKEN_VARIABLE + "=" + token).getBytes(StandardCharsets.UTF_8);
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    byte[] environ = Files.readAllBytes(entry.resolve("environ"));
                    if (contains(environ, needle) && !isZombie(entry)) {
                        pids.add(Long.parseLong(name));
                    }
                } catch (IOException e) {
                    // gone meanwhile, or not ours
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return pids;
    }

    private static boolean isZombie(Path entry) throws IOException {
        String stat = Files.readString(entry.resolve("stat"));
        return stat.substring(stat.lastIndexOf(')') + 1).trim().startsWith("Z");
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (i > 0 && haystack[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Waits (Awaitility, polling every 20 ms) until {@code condition} holds, failing with {@code what} after {@code timeout}. */
    public static void await(BooleanSupplier condition, Duration timeout, String what) {
        try {
            Awaitility.await(what).atMost(timeout).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("timed out after " + timeout + " waiting for " + what, e);
        }
    }

    /** Waits until no process holding {@code token} is left (a killed tree takes a moment to be reaped). */
    public static void awaitNone(String token) {
        try {
            await(() -> withToken(token).isEmpty(), Duration.ofSeconds(10), "every process of the test to be gone");
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; left: " + withToken(token), e);
        }
    }
}
