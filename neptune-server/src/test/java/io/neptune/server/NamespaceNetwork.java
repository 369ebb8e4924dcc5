package io.neptune.server;

import static org.junit.jupiter.api.Assumptions.abort;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A private L2 network built from Linux network namespaces that this object creates and deletes:
 * one namespace per node, each with {@code lo} and one veth {@code eth0} whose peer sits on a bridge
 * in an extra "switch" namespace. Nothing is created in, or connected to, the host's namespace, so
 * traffic between the nodes (IP multicast included) cannot reach a host interface.
 *
 * <pre>
 *   [nep-xxxx-a] eth0 10.N.M.1 ─┐
 *   [nep-xxxx-b] eth0 10.N.M.2 ─┼─ p0/p1/p2 ── br0 [nep-xxxx-sw]
 *   [nep-xxxx-c] eth0 10.N.M.3 ─┘
 * </pre>
 *
 * <p>{@link #create} aborts the calling test (a JUnit assumption, so it is reported as skipped,
 * with the reason) when not root, when iproute2 is missing, or when the kernel or container
 * refuses namespaces, bridges or veth pairs. {@link #close} deletes every namespace, which also
 * removes the bridge and the veth pairs; a shutdown hook does the same if the JVM exits first.
 *
 * <p>Thread-safety: not thread-safe; used by one test thread.
 */
final class NamespaceNetwork implements AutoCloseable {
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);

    private final String prefix;
    private final String subnet;
    private final int nodes;
    private final List<String> created = new ArrayList<>();
    private final Thread shutdownHook;
    private boolean closed;

    private NamespaceNetwork(int nodes) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        this.prefix = "nep-" + Integer.toHexString(random.nextInt(0x1000_0000, Integer.MAX_VALUE));
        this.subnet = "10." + random.nextInt(1, 255) + "." + random.nextInt(1, 255) + ".";
        this.nodes = nodes;
        this.shutdownHook = new Thread(this::deleteNamespaces, prefix + "-cleanup");
    }

    /** Builds the network for {@code nodes} nodes, or aborts the test saying why it cannot. */
    static NamespaceNetwork create(int nodes) {
        checkPrerequisites();
        NamespaceNetwork network = new NamespaceNetwork(nodes);
        Runtime.getRuntime().addShutdownHook(network.shutdownHook);
        try {
            network.build();
            return network;
        } catch (RuntimeException | Error e) {
            network.close();
            throw e;
        }
    }

    /** The name of node {@code i}'s namespace. */
    String namespace(int i) {
        return prefix + "-" + (char) ('a' + i);
    }

    /** The IPv4 address of node {@code i} on the private network. */
    String address(int i) {
        return subnet + (i + 1);
    }

    /** The namespace that holds the bridge. */
    String switchNamespace() {
        return prefix + "-sw";
    }

    /** Runs {@code command} inside node {@code i}'s namespace and returns its output; fails on a non-zero exit. */
    String exec(int i, String... command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace(i)));
        full.addAll(List.of(command));
        Result result = run(full);
        if (result.exit() != 0) {
            throw new IllegalStateException(result.describe(full));
        }
        return result.output();
    }

    /** An IPv4 counter of node {@code i}'s namespace from the {@code IpExt} lines of {@code /proc/net/netstat}. */
    long ipCounter(int i, String name) {
        String[] lines = exec(i, "cat", "/proc/net/netstat").lines().filter(l -> l.startsWith("IpExt:"))
                .toArray(String[]::new);
        if (lines.length != 2) {
            throw new IllegalStateException(namespace(i) + ": no IpExt counters in /proc/net/netstat");
        }
        List<String> names = List.of(lines[0].split("\\s+"));
        String[] values = lines[1].split("\\s+");
        int index = names.indexOf(name);
        if (index < 1) {
            throw new IllegalArgumentException("name: " + name + " (expected: one of " + names.subList(1, names.size())
                    + ")");
        }
        return Long.parseLong(values[index]);
    }

    private void build() {
        String sw = switchNamespace();
        addNamespace(sw);
        ip(sw, "link", "set", "lo", "up");
        requireOrAbort(List.of("ip", "-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"),
                "cannot create a Linux bridge in a network namespace (bridge module missing?)");
        ip(sw, "link", "set", "br0", "up");
        for (int i = 0; i < nodes; i++) {
            String ns = namespace(i);
            String port = "p" + i;
            addNamespace(ns);
            ip(ns, "link", "set", "lo", "up");
            requireOrAbort(List.of("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port,
                    "netns", sw), "cannot create a veth pair between network namespaces (veth module missing?)");
            ip(sw, "link", "set", port, "master", "br0");
            ip(sw, "link", "set", port, "up");
            ip(ns, "addr", "add", address(i) + "/24", "dev", "eth0");
            ip(ns, "link", "set", "eth0", "up");
            // Multicast leaves through eth0, the only non-loopback interface; there is no default route.
            ip(ns, "route", "add", "224.0.0.0/4", "dev", "eth0");
        }
    }

    private void addNamespace(String name) {
        List<String> command = List.of("ip", "netns", "add", name);
        Result result = run(command);
        if (result.exit() != 0) {
            abort("`ip netns add` failed, so the test cannot build its private multicast network"
                    + " (no CAP_SYS_ADMIN, e.g. in an unprivileged container?): " + result.describe(command));
        }
        synchronized (this) {
            created.add(name);
        }
    }

    private void ip(String namespace, String... args) {
        List<String> command = new ArrayList<>(List.of("ip", "-n", namespace));
        command.addAll(List.of(args));
        Result result = run(command);
        if (result.exit() != 0) {
            throw new IllegalStateException(result.describe(command));
        }
    }

    private static void requireOrAbort(List<String> command, String reason) {
        Result result = run(command);
        if (result.exit() != 0) {
            abort(reason + ": " + result.describe(command));
        }
    }

    private static void checkPrerequisites() {
        String uid = effectiveUid();
        if (!uid.equals("0")) {
            abort("not root (effective uid " + uid + "): creating network namespaces needs root;"
                    + " run as root to test the UDP multicast stack");
        }
        try {
            Result version = run(List.of("ip", "-V"));
            if (version.exit() != 0) {
                abort("`ip -V` failed, iproute2 unusable: " + version.output().trim());
            }
        } catch (UncheckedIOException e) {
            abort("the `ip` command (iproute2) is not installed or not on PATH: " + e.getCause().getMessage());
        }
    }

    private static String effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    return line.substring(4).trim().split("\\s+")[1];   // real, effective, saved, fs
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux /proc; fall back to `id -u`
        }
        try {
            return run(List.of("id", "-u")).output().trim();
        } catch (UncheckedIOException e) {
            return "unknown (" + e.getCause().getMessage() + ")";
        }
    }

    /** Deletes every namespace this network created; idempotent. Processes inside must be stopped first. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<String> failures = deleteNamespaces();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down; the hook runs anyway and finds nothing left
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("could not delete network namespaces: " + failures);
        }
    }

    private synchronized List<String> deleteNamespaces() {
        List<String> failures = new ArrayList<>();
        List<String> reversed = new ArrayList<>(created);
        Collections.reverse(reversed);
        for (String name : reversed) {
            List<String> command = List.of("ip", "netns", "del", name);
            try {
                Result result = run(command);
                if (result.exit() != 0) {
                    failures.add(result.describe(command));
                }
            } catch (UncheckedIOException e) {
                failures.add(name + ": " + e.getMessage());
            }
        }
        created.clear();
        return failures;
    }

    /** The output (stdout and stderr) and exit code of a finished command. */
    record Result(int exit, String output) {
        String describe(List<String> command) {
            return "`" + String.join(" ", command) + "` exited with " + exit + ": " + output.trim();
        }
    }

    /** Runs a short command with a timeout; throws {@link UncheckedIOException} if it cannot start. */
    static Result run(List<String> command) {
        Path output;
        Process process;
        try {
            output = Files.createTempFile("neptune-command-", ".out");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary file for the output of " + command, e);
        }
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(output.toFile()).start();
            try {
                if (!process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("`" + String.join(" ", command) + "`: no exit within "
                            + COMMAND_TIMEOUT);
                }
            } finally {
                process.destroyForcibly();
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        } finally {
            try {
                Files.deleteIfExists(output);
            } catch (IOException e) {
                // a temporary file; best effort
            }
        }
    }
}
