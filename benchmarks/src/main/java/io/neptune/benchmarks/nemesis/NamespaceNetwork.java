package io.neptune.benchmarks.nemesis;

import static java.util.Objects.requireNonNull;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A private L2 network of Linux network namespaces that this object creates and deletes: one
 * namespace per node and one for the workload client, each with {@code lo} and one veth {@code eth0}
 * whose peer sits on a bridge in an extra "switch" namespace. Nothing is created in, or connected
 * to, the host's namespace, and no namespace has a default route or a multicast route, so nothing
 * the nodes send can reach a host interface.
 *
 * <pre>
 *   [nem-PID-xxxx-n1] eth0 10.A.B.1 ─┐
 *   [nem-PID-xxxx-n2] eth0 10.A.B.2 ─┼─ p1/p2/…/pc ── br0 [nem-PID-xxxx-sw]
 *   [nem-PID-xxxx-cl] eth0 10.A.B.100 ┘
 * </pre>
 *
 * <p>Faults: {@link #cut} drops every packet between two nodes in both directions with a
 * {@code blackhole} route to the other's address in each of the two namespaces (the kernel discards
 * the packets silently, also on connections already open; a new {@code connect} fails at once,
 * like an unreachable host); {@link #slow} puts a queueing discipline on a node's {@code eth0}
 * ({@code netem} delay and loss when the kernel has it, else a {@code tbf} rate limit whose queue
 * delays every packet). The client is never cut: like a Jepsen client it can reach every node.
 *
 * <p>Namespace names carry the creating JVM's pid, so {@link #create} first deletes what an earlier
 * run whose JVM is gone left behind (killing the processes still inside). {@link #close} deletes
 * every namespace, which removes the bridge and the veth pairs; processes inside must be stopped
 * first.
 *
 * <p>Thread-safety: thread-safe; every method that changes the network is synchronized.
 */
final class NamespaceNetwork implements AutoCloseable {
    private static final String PREFIX = "nem-";
    private static final int CLIENT_HOST = 100;

    private final String prefix;
    private final String subnet;
    private final int nodes;
    private final List<String> created = new ArrayList<>();
    private final Set<List<Integer>> cuts = new LinkedHashSet<>();
    private final Set<Integer> slowed = new LinkedHashSet<>();
    private boolean closed;

    private NamespaceNetwork(int nodes) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        this.prefix = PREFIX + ProcessHandle.current().pid() + "-" + Integer.toHexString(random.nextInt(0x1000, 0x10000));
        this.subnet = "10." + random.nextInt(1, 255) + "." + random.nextInt(1, 255) + ".";
        this.nodes = nodes;
    }

    /**
     * Why this machine cannot build the network (not root, no iproute2), or empty if it can try.
     * The kernel may still refuse namespaces, bridges or veth pairs: {@link #create} says so then.
     */
    static Optional<String> unavailableReason() {
        String uid = Commands.effectiveUid();
        if (!uid.equals("0")) {
            return Optional.of("not root (effective uid " + uid + "): creating network namespaces needs root");
        }
        try {
            Commands.Result version = Commands.run(List.of("ip", "-V"));
            if (version.exit() != 0) {
                return Optional.of("`ip -V` failed, iproute2 unusable: " + version.output().trim());
            }
        } catch (UncheckedIOException e) {
            return Optional.of("the `ip` command (iproute2) is not installed or not on PATH: "
                    + requireNonNull(e.getCause(), "an UncheckedIOException has a cause").getMessage());
        }
        return Optional.empty();
    }

    /**
     * Builds the network for {@code nodes} nodes and one client.
     *
     * @throws NetworkUnavailableException if this machine cannot (not root, no iproute2, the kernel
     *     refuses namespaces, bridges or veth pairs)
     */
    static NamespaceNetwork create(int nodes) {
        Optional<String> reason = unavailableReason();
        if (reason.isPresent()) {
            throw new NetworkUnavailableException(reason.get());
        }
        deleteOrphans();
        NamespaceNetwork network = new NamespaceNetwork(nodes);
        try {
            network.build();
            return network;
        } catch (RuntimeException | Error e) {
            network.close();
            throw e;
        }
    }

    /** The number of node namespaces. */
    int nodes() {
        return nodes;
    }

    /** The name of node {@code i}'s namespace (0-based). */
    String namespace(int i) {
        return prefix + "-n" + (i + 1);
    }

    /** The IPv4 address of node {@code i} on the private network. */
    String address(int i) {
        return subnet + (i + 1);
    }

    /** The namespace of the workload client. */
    String clientNamespace() {
        return prefix + "-cl";
    }

    /** The IPv4 address of the workload client. */
    String clientAddress() {
        return subnet + CLIENT_HOST;
    }

    private String switchNamespace() {
        return prefix + "-sw";
    }

    /** Drops every packet between nodes {@code a} and {@code b}, both ways; a cut already in place is kept. */
    synchronized void cut(int a, int b) {
        checkOpen();
        List<Integer> pair = List.of(Math.min(a, b), Math.max(a, b));
        if (a == b || !cuts.add(pair)) {
            return;
        }
        ip(namespace(a), "route", "add", "blackhole", address(b) + "/32");
        ip(namespace(b), "route", "add", "blackhole", address(a) + "/32");
    }

    /** Lets packets between nodes {@code a} and {@code b} through again. */
    synchronized void heal(int a, int b) {
        List<Integer> pair = List.of(Math.min(a, b), Math.max(a, b));
        if (!cuts.remove(pair)) {
            return;
        }
        ip(namespace(a), "route", "del", "blackhole", address(b) + "/32");
        ip(namespace(b), "route", "del", "blackhole", address(a) + "/32");
    }

    /** The node pairs currently cut, each as {@code [lower, higher]}. */
    synchronized List<List<Integer>> cuts() {
        return List.copyOf(cuts);
    }

    /**
     * Slows every packet node {@code i} sends: {@code netem} delay (jittered) and 1% loss if the
     * kernel has it, else a {@code tbf} rate limit of 256 kbit/s with up to {@code delay} of queue.
     *
     * @return what was installed, for the fault log; empty if the kernel has neither discipline
     */
    synchronized Optional<String> slow(int i, Duration delay) {
        checkOpen();
        long ms = Math.max(1, delay.toMillis());
        String ns = namespace(i);
        List<String> netem = List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "root", "netem",
                "delay", ms + "ms", (ms / 4) + "ms", "loss", "1%");
        if (Commands.run(netem).exit() == 0) {
            slowed.add(i);
            return Optional.of("netem delay " + ms + "ms ±" + (ms / 4) + "ms loss 1%");
        }
        List<String> tbf = List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf",
                "rate", "256kbit", "burst", "16kbit", "latency", ms + "ms");
        if (Commands.run(tbf).exit() == 0) {
            slowed.add(i);
            return Optional.of("tbf rate 256kbit latency " + ms + "ms (no netem in this kernel)");
        }
        return Optional.empty();
    }

    /** Removes what {@link #slow} installed on node {@code i}. */
    synchronized void unslow(int i) {
        if (slowed.remove(i)) {
            List<String> command = List.of("ip", "netns", "exec", namespace(i), "tc", "qdisc", "del", "dev", "eth0",
                    "root");
            Commands.Result result = Commands.run(command);
            if (result.exit() != 0) {
                throw new IllegalStateException(result.describe(command));
            }
        }
    }

    /** Heals every cut and removes every slow link; returns what it could not undo (empty when all went). */
    synchronized List<String> healAll() {
        List<String> failures = new ArrayList<>();
        for (List<Integer> pair : List.copyOf(cuts)) {
            try {
                heal(pair.get(0), pair.get(1));
            } catch (RuntimeException e) {
                failures.add(e.getMessage());
            }
        }
        for (int i : List.copyOf(slowed)) {
            try {
                unslow(i);
            } catch (RuntimeException e) {
                failures.add(e.getMessage());
            }
        }
        return failures;
    }

    private void build() {
        String sw = switchNamespace();
        addNamespace(sw);
        ip(sw, "link", "set", "lo", "up");
        require(List.of("ip", "-n", sw, "link", "add", "br0", "type", "bridge"),
                "cannot create a Linux bridge in a network namespace (bridge module missing?)");
        ip(sw, "link", "set", "br0", "up");
        for (int i = 0; i < nodes; i++) {
            attach(namespace(i), "p" + (i + 1), address(i));
        }
        attach(clientNamespace(), "pc", clientAddress());
    }

    private void attach(String ns, String port, String address) {
        String sw = switchNamespace();
        addNamespace(ns);
        ip(ns, "link", "set", "lo", "up");
        require(List.of("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", sw),
                "cannot create a veth pair between network namespaces (veth module missing?)");
        ip(sw, "link", "set", port, "master", "br0");
        ip(sw, "link", "set", port, "up");
        ip(ns, "addr", "add", address + "/24", "dev", "eth0");
        ip(ns, "link", "set", "eth0", "up");
    }

    private void addNamespace(String name) {
        List<String> command = List.of("ip", "netns", "add", name);
        Commands.Result result = Commands.run(command);
        if (result.exit() != 0) {
            throw new NetworkUnavailableException("`ip netns add` failed (no CAP_SYS_ADMIN, e.g. in an"
                    + " unprivileged container?): " + result.describe(command));
        }
        synchronized (this) {
            created.add(name);
        }
    }

    private static void ip(String namespace, String... args) {
        List<String> command = new ArrayList<>(List.of("ip", "-n", namespace));
        command.addAll(List.of(args));
        Commands.Result result = Commands.run(command);
        if (result.exit() != 0) {
            throw new IllegalStateException(result.describe(command));
        }
    }

    private static void require(List<String> command, String reason) {
        Commands.Result result = Commands.run(command);
        if (result.exit() != 0) {
            throw new NetworkUnavailableException(reason + ": " + result.describe(command));
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(prefix + ": closed");
        }
    }

    /**
     * Deletes the namespaces of earlier runs whose JVM is gone (a run killed with SIGKILL cannot
     * clean up), after killing what still runs inside them (a node left paused by SIGSTOP).
     */
    private static void deleteOrphans() {
        Commands.Result list = Commands.run(List.of("ip", "netns", "list"));
        for (String line : list.output().lines().toList()) {
            String name = line.split("\\s+")[0];
            if (!name.startsWith(PREFIX)) {
                continue;
            }
            String[] parts = name.substring(PREFIX.length()).split("-");
            long owner;
            try {
                owner = Long.parseLong(parts[0]);
            } catch (NumberFormatException e) {
                continue;
            }
            if (ProcessHandle.of(owner).isPresent()) {
                continue;
            }
            for (String pid : Commands.run(List.of("ip", "netns", "pids", name)).output().lines().toList()) {
                Commands.run(List.of("kill", "-CONT", pid.trim()));
                Commands.run(List.of("kill", "-KILL", pid.trim()));
            }
            Commands.run(List.of("ip", "netns", "del", name));
        }
    }

    /** Deletes every namespace this network created; idempotent. Processes inside must be stopped first. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        cuts.clear();
        slowed.clear();
        List<String> failures = new ArrayList<>();
        List<String> reversed = new ArrayList<>(created);
        Collections.reverse(reversed);
        for (String name : reversed) {
            List<String> command = List.of("ip", "netns", "del", name);
            try {
                Commands.Result result = Commands.run(command);
                if (result.exit() != 0) {
                    failures.add(result.describe(command));
                }
            } catch (UncheckedIOException e) {
                failures.add(name + ": " + e.getMessage());
            }
        }
        created.clear();
        if (!failures.isEmpty()) {
            throw new IllegalStateException("could not delete network namespaces: " + failures);
        }
    }

    @Override
    public String toString() {
        return "NamespaceNetwork[" + prefix + ", " + nodes + " nodes on " + subnet + "0/24]";
    }
}
