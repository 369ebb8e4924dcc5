package io.neptune.server;

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
 * namespace per node (and, if asked for, one for a workload client), each with {@code lo} and one
 * veth {@code eth0} whose peer sits on a bridge in an extra "switch" namespace. Nothing is created
 * in, or connected to, the host's namespace, and no namespace has a default route, so nothing the
 * nodes send can reach a host interface. Only a network built with {@link Builder#multicast()} has a
 * multicast route (on {@code eth0}, inside each node namespace); without it, IP multicast has
 * nowhere to go.
 *
 * <pre>
 *   [nem-PID-xxxx-n1] eth0 10.A.B.1 ─┐
 *   [nem-PID-xxxx-n2] eth0 10.A.B.2 ─┼─ p1/p2/…/pc ── br0 [nem-PID-xxxx-sw]
 *   [nem-PID-xxxx-cl] eth0 10.A.B.100 ┘   (the client, with {@link Builder#client()})
 * </pre>
 *
 * <p>Users: {@code MulticastStackIT} (node processes find each other by IP multicast) and the
 * nemesis bench (partitions and slow links between node processes, a client that reaches them all).
 *
 * <p>Faults: {@link #cut} drops every packet between two nodes in both directions with a
 * {@code blackhole} route to the other's address in each of the two namespaces (the kernel discards
 * the packets silently, also on connections already open; a new {@code connect} fails at once,
 * like an unreachable host); {@link #slow} puts a queueing discipline on a node's {@code eth0}
 * ({@code netem} delay and loss when the kernel has it, else a {@code tbf} rate limit whose queue
 * delays every packet). The client is never cut: like a Jepsen client it can reach every node.
 *
 * <p>Cleanup: namespace names carry the creating JVM's pid, so {@link Builder#create} first deletes
 * what an earlier run whose JVM is gone left behind (killing the processes still inside). {@link
 * #close} deletes every namespace, which removes the bridge and the veth pairs; processes inside
 * must be stopped first. A shutdown hook does the same if the JVM exits before {@link #close}.
 *
 * <p>Thread-safety: thread-safe; every method that changes the network is synchronized.
 */
public final class NamespaceNetwork implements AutoCloseable {
    private static final String PREFIX = "nem-";
    private static final int CLIENT_HOST = 100;

    private final String prefix;
    private final String subnet;
    private final int nodes;
    private final boolean client;
    private final boolean multicast;
    private final List<String> created = new ArrayList<>();
    private final Set<List<Integer>> cuts = new LinkedHashSet<>();
    private final Set<Integer> slowed = new LinkedHashSet<>();
    private final Thread shutdownHook;
    private boolean closed;

    private NamespaceNetwork(Builder builder) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        this.prefix = PREFIX + ProcessHandle.current().pid() + "-" + Integer.toHexString(random.nextInt(0x1000, 0x10000));
        this.subnet = "10." + random.nextInt(1, 255) + "." + random.nextInt(1, 255) + ".";
        this.nodes = builder.nodes;
        this.client = builder.client;
        this.multicast = builder.multicast;
        this.shutdownHook = new Thread(this::deleteNamespaces, prefix + "-cleanup");
    }

    /** A builder of a network of {@code nodes} node namespaces. */
    public static Builder builder(int nodes) {
        return new Builder(nodes);
    }

    /**
     * Why this machine cannot build the network (not root, no iproute2), or empty if it can try.
     * The kernel may still refuse namespaces, bridges or veth pairs: {@link Builder#create} says so then.
     */
    public static Optional<String> unavailableReason() {
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

    /** The number of node namespaces. */
    public int nodes() {
        return nodes;
    }

    /** The name of node {@code i}'s namespace (0-based). */
    public String namespace(int i) {
        checkNode(i);
        return prefix + "-n" + (i + 1);
    }

    /** The IPv4 address of node {@code i} on the private network. */
    public String address(int i) {
        checkNode(i);
        return subnet + (i + 1);
    }

    /** The namespace of the workload client; only with {@link Builder#client()}. */
    public String clientNamespace() {
        checkClient();
        return prefix + "-cl";
    }

    /** The IPv4 address of the workload client; only with {@link Builder#client()}. */
    public String clientAddress() {
        checkClient();
        return subnet + CLIENT_HOST;
    }

    private String switchNamespace() {
        return prefix + "-sw";
    }

    /** Runs {@code command} inside node {@code i}'s namespace and returns its output; fails on a non-zero exit. */
    public String exec(int i, String... command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace(i)));
        full.addAll(List.of(command));
        Commands.Result result = Commands.run(full);
        if (result.exit() != 0) {
            throw new IllegalStateException(result.describe(full));
        }
        return result.output();
    }

    /** An IPv4 counter of node {@code i}'s namespace from the {@code IpExt} lines of {@code /proc/net/netstat}. */
    public long ipCounter(int i, String name) {
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

    /** Drops every packet between nodes {@code a} and {@code b}, both ways; a cut already in place is kept. */
    public synchronized void cut(int a, int b) {
        checkOpen();
        List<Integer> pair = List.of(Math.min(a, b), Math.max(a, b));
        if (a == b || !cuts.add(pair)) {
            return;
        }
        ip(namespace(a), "route", "add", "blackhole", address(b) + "/32");
        ip(namespace(b), "route", "add", "blackhole", address(a) + "/32");
    }

    /** Lets packets between nodes {@code a} and {@code b} through again. */
    public synchronized void heal(int a, int b) {
        List<Integer> pair = List.of(Math.min(a, b), Math.max(a, b));
        if (!cuts.remove(pair)) {
            return;
        }
        ip(namespace(a), "route", "del", "blackhole", address(b) + "/32");
        ip(namespace(b), "route", "del", "blackhole", address(a) + "/32");
    }

    /** The node pairs currently cut, each as {@code [lower, higher]}. */
    public synchronized List<List<Integer>> cuts() {
        return List.copyOf(cuts);
    }

    /**
     * Slows every packet node {@code i} sends: {@code netem} delay (jittered) and 1% loss if the
     * kernel has it, else a {@code tbf} rate limit of 256 kbit/s with up to {@code delay} of queue.
     *
     * @return what was installed, for the fault log; empty if the kernel has neither discipline
     */
    public synchronized Optional<String> slow(int i, Duration delay) {
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
    public synchronized void unslow(int i) {
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
    public synchronized List<String> healAll() {
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
        // No IGMP snooping: the bridge floods multicast to every port, as a plain switch would.
        require(List.of("ip", "-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"),
                "cannot create a Linux bridge in a network namespace (bridge module missing?)");
        ip(sw, "link", "set", "br0", "up");
        for (int i = 0; i < nodes; i++) {
            attach(namespace(i), "p" + (i + 1), address(i));
            if (multicast) {
                // Multicast leaves through eth0, the only non-loopback interface; there is no default route.
                ip(namespace(i), "route", "add", "224.0.0.0/4", "dev", "eth0");
            }
        }
        if (client) {
            attach(clientNamespace(), "pc", clientAddress());
        }
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

    private void checkNode(int i) {
        if (i < 0 || i >= nodes) {
            throw new IllegalArgumentException("node: " + i + " (expected: 0.." + (nodes - 1) + ")");
        }
    }

    private void checkClient() {
        if (!client) {
            throw new IllegalStateException(prefix + ": built without a client namespace (expected: Builder.client())");
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
                Commands.Result result = Commands.run(command);
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

    @Override
    public String toString() {
        return "NamespaceNetwork[" + prefix + ", " + nodes + " nodes" + (client ? " and a client" : "") + " on "
                + subnet + "0/24" + (multicast ? ", multicast" : "") + "]";
    }

    /** What to build besides the node namespaces. Mutable, single-use; not thread-safe. */
    public static final class Builder {
        private final int nodes;
        private boolean client;
        private boolean multicast;

        private Builder(int nodes) {
            if (nodes < 1 || nodes > 99) {
                throw new IllegalArgumentException("nodes: " + nodes + " (expected: 1..99)");
            }
            this.nodes = nodes;
        }

        /** Adds a namespace for a workload client at host address 100, never {@linkplain #cut cut} off. */
        public Builder client() {
            this.client = true;
            return this;
        }

        /** Routes IP multicast ({@code 224.0.0.0/4}) out of each node's {@code eth0}, to the bridge only. */
        public Builder multicast() {
            this.multicast = true;
            return this;
        }

        /**
         * Builds the network.
         *
         * @throws NetworkUnavailableException if this machine cannot (not root, no iproute2, the kernel
         *     refuses namespaces, bridges or veth pairs)
         */
        public NamespaceNetwork create() {
            Optional<String> reason = unavailableReason();
            if (reason.isPresent()) {
                throw new NetworkUnavailableException(reason.get());
            }
            deleteOrphans();
            NamespaceNetwork network = new NamespaceNetwork(this);
            Runtime.getRuntime().addShutdownHook(network.shutdownHook);
            try {
                network.build();
                return network;
            } catch (RuntimeException | Error e) {
                network.close();
                throw e;
            }
        }
    }
}
