package io.neptune.server.cli;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ClusterSecret;
import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.config.ConfigNode;
import io.neptune.server.ClusterAdmin;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code neptune admin}: look at a running cluster and act on it, from a node that hosts nothing. */
@Command(name = "admin", mixinStandardHelpOptions = true,
        description = "Inspect a running cluster (nodes, replica states and digests) and change it: promote a"
                + " replica, move a primary role, drain a node, add or remove a replica, rebalance.",
        subcommands = {AdminCommand.Nodes.class, AdminCommand.Replicas.class, AdminCommand.Promote.class,
                AdminCommand.MovePrimary.class, AdminCommand.Drain.class, AdminCommand.AddReplica.class,
                RemoveReplicaCommand.class, AdminCommand.Rebalance.class})
public final class AdminCommand implements Runnable {
    @Override
    public void run() {
        System.out.println("Usage: neptune admin (nodes | replicas | promote | move-primary | drain | add-replica"
                + " | remove-replica | rebalance) --config FILE ...;"
                + " see --help");
    }

    /** How the admin node finds the cluster. */
    static final class Target {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Source source;

        @Option(names = "--wait", defaultValue = "5s", paramLabel = "TIME",
                description = "Longest time to listen for announcements before answering (default: ${DEFAULT-VALUE});"
                        + " it answers sooner once the set of nodes stopped changing for 1.5 s.")
        String wait;

        static final class Source {
            @Option(names = "--config", paramLabel = "FILE", description = "A node's config file: use its cluster settings.")
            @Nullable Path config;

            @Option(names = "--cluster", paramLabel = "NAME", description = "Cluster name (loopback stack).")
            @Nullable String cluster;
        }

        @Option(names = "--discovery-directory", paramLabel = "DIR", description = "With --cluster: discovery directory.")
        @Nullable Path discovery;

        @Option(names = "--certificate", paramLabel = "FILE", description = "The operator's PEM certificate"
                + " (neptune://operator/NAME, from 'neptune certs issue --role operator'): needed when the cluster runs"
                + " with TLS.")
        @Nullable Path certificate;

        @Option(names = "--key", paramLabel = "FILE", description = "The PEM PKCS#8 key of --certificate.")
        @Nullable Path key;

        @Option(names = "--trust", paramLabel = "FILE", description = "PEM certificates of the authorities the nodes'"
                + " certificates come from (default: security.trust of --config).")
        @Nullable Path trust;

        /**
         * TLS as the operator: the cluster's TLS mode and trust from {@code --config}, the identity
         * from {@code --certificate} and {@code --key}; no TLS without a certificate.
         */
        SecurityConfig security(@Nullable SecurityConfig cluster) {
            if (certificate == null && key == null) {
                if (cluster != null && cluster.tls() == SecurityConfig.TlsMode.REQUIRED) {
                    throw new ConfigException("--certificate", "missing (expected: an operator's certificate and"
                            + " --key: the cluster's nodes require TLS; 'neptune certs issue --role operator' makes one)");
                }
                return SecurityConfig.disabled();
            }
            if (certificate == null || key == null) {
                throw new ConfigException(certificate == null ? "--certificate" : "--key", "missing (expected:"
                        + " --certificate and --key together)");
            }
            Path authorities = trust;
            if (authorities == null && cluster != null) {
                authorities = cluster.trust();
            }
            if (authorities == null) {
                throw new ConfigException("--trust", "missing (expected: the authorities' PEM file, or --config of a"
                        + " node whose security section names one)");
            }
            SecurityConfig.TlsMode mode = cluster != null && cluster.isEnabled() ? cluster.tls()
                    : SecurityConfig.TlsMode.REQUIRED;
            return SecurityConfig.builder().tls(mode).identity(certificate, key).trust(authorities).build();
        }

        /** {@code security} with the cluster secret of {@code --config}, if its node has one. */
        private static SecurityConfig withClusterSecret(SecurityConfig security, @Nullable SecurityConfig cluster) {
            ClusterSecret secret = cluster == null ? null : cluster.clusterSecret();
            return secret == null ? security : security.toBuilder().clusterSecret(secret).build();
        }

        /** Joins the cluster as a node hosting nothing and waits for announcements. */
        NeptuneNode join() throws InterruptedException {
            MembershipConfig membership;
            SecurityConfig cluster = null;
            if (source.config != null) {
                NodeConfig config = NodeConfigFile.load(source.config).node();
                membership = config.membership();
                cluster = config.security();
            } else {
                MembershipConfig.Builder builder = MembershipConfig.builder()
                        .cluster(requireNonNull(source.cluster, "--cluster: picocli requires it or --config"));
                if (discovery != null) {
                    builder.discoveryDirectory(discovery);
                }
                membership = builder.build();
            }
            NeptuneNode node = NeptuneNode.builder(NodeConfig.builder().node("admin-" + ProcessHandle.current().pid())
                    .ioThreads(1).membership(membership).adminPort(NodeConfig.NO_ADMIN_PORT)
                    .security(withClusterSecret(security(cluster), cluster))
                    .build()).start();
            long deadline = System.nanoTime() + ConfigNode.parseDuration("--wait", wait).toNanos();
            long stableSince = System.nanoTime();
            int known = -1;
            while (System.nanoTime() < deadline) {
                int now = node.knownNodes().size();
                if (now != known) {
                    known = now;
                    stableSince = System.nanoTime();
                } else if (now > 0 && System.nanoTime() - stableSince > Duration.ofMillis(1500).toNanos()) {
                    break; // announcements come every second or so: the yellow page is complete
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            if (node.knownNodes().isEmpty()) {
                node.close();
                // A JGroups join that timed out leaves this process alone in its view until a merge: on a busy
                // cluster that can outlast --wait.
                throw new NeptuneException("heard no node of cluster '" + membership.cluster() + "' within " + wait
                        + " (" + membership.stack().name().toLowerCase(Locale.ROOT) + " stack"
                        + (membership.stack() == MembershipConfig.Stack.LOOPBACK ? ", discovery directory "
                        + membership.discoveryDirectory() : "") + "): is a node of it running with these membership"
                        + " settings? A busy cluster may need a longer --wait.");
            }
            return node;
        }
    }

    /**
     * Waits, up to {@code --wait} more, until node {@code id} is in {@code admin}'s yellow page: {@link
     * Target#join} answers once the page stopped changing, which on a busy cluster can be before every
     * node was heard.
     */
    static void awaitNode(Target target, NeptuneNode admin, String id) throws InterruptedException {
        long deadline = System.nanoTime() + ConfigNode.parseDuration("--wait", target.wait).toNanos();
        while (admin.knownNodes().stream().noneMatch(n -> n.value().equals(id)) && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** {@code SERVICE PARTITION NODE}: the replica that move-primary and add-replica change. */
    static final class ReplicaOf {
        @Parameters(index = "0", paramLabel = "SERVICE")
        String service;

        @Parameters(index = "1", paramLabel = "PARTITION")
        int partition;

        @Parameters(index = "2", paramLabel = "NODE", description = "The node whose replica of the partition changes.")
        String nodeId;

        /**
         * Joins the cluster, waits until NODE is heard, and prints what {@code change} answers within
         * {@code seconds}; 0 once it answered.
         */
        int change(Target target, long seconds, Function<ClusterAdmin, CompletableFuture<?>> change)
                throws Exception {
            try (NeptuneNode node = target.join()) {
                awaitNode(target, node, nodeId);
                System.out.println(whileNoPrimaryIsHeard(target, () -> change.apply(node.admin()), seconds));
                return 0;
            }
        }
    }

    /**
     * What {@code attempt} completes with within {@code seconds}, asked again every half second up to
     * {@code --wait} while it fails with NEP-PLACE-002 (the partition has no primary in the yellow page, or
     * the primary is busy with another change; either is refused before anything changes): right after
     * joining, the admin may not have heard every node yet.
     */
    static <T> T whileNoPrimaryIsHeard(Target target, Callable<CompletableFuture<T>> attempt, long seconds)
            throws Exception {
        long deadline = System.nanoTime() + ConfigNode.parseDuration("--wait", target.wait).toNanos();
        while (true) {
            try {
                return attempt.call().get(seconds, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                String why = String.valueOf(e.getCause() == null ? null : e.getCause().getMessage());
                if (!why.startsWith("NEP-PLACE-002") || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    /** {@code admin nodes}. */
    @Command(name = "nodes", mixinStandardHelpOptions = true, description = "List the nodes in the yellow page.")
    static final class Nodes implements Callable<Integer> {
        @Mixin
        Target target;

        @Override
        public Integer call() throws InterruptedException {
            try (NeptuneNode node = target.join()) {
                List<ClusterAdmin.NodeStatus> nodes = node.admin().nodes();
                System.out.printf("%-16s %8s %-22s %-29s %5s  %s%n", "node", "pid", "address", "admin-url", "load",
                        "services");
                for (ClusterAdmin.NodeStatus n : nodes) {
                    System.out.printf("%-16s %8d %-22s %-29s %5d  %s%n", n.node(), n.pid(), n.address(),
                            n.adminUrl().isEmpty() ? "-" : n.adminUrl(), n.load(), String.join(",", n.services()));
                }
                return nodes.isEmpty() ? 1 : 0;
            }
        }
    }

    /** {@code admin replicas}. */
    @Command(name = "replicas", mixinStandardHelpOptions = true,
            description = "Ask every replica of a partition for its role, versions and digest.")
    static final class Replicas implements Callable<Integer> {
        @Mixin
        Target target;

        @Option(names = "--service", required = true)
        String service;

        @Option(names = "--partition", required = true)
        int partition;

        @Override
        public Integer call() throws Exception {
            try (NeptuneNode node = target.join()) {
                List<ReplicaStatus> replicas = node.admin().replicas(service, partition).get(30, TimeUnit.SECONDS);
                if (replicas.isEmpty()) {
                    throw new ConfigException("--service", "'" + service + "#" + partition
                            + "' has no replica in the yellow page");
                }
                System.out.printf("%-16s %-10s %6s %9s %8s %8s %4s  %s%n", "node", "role", "epoch", "log-start",
                        "log-end", "version", "prio", "digest");
                for (ReplicaStatus r : replicas) {
                    System.out.printf("%-16s %-10s %6d %9s %8d %8d %4d  %s%n", r.node(), r.role(), r.epoch(),
                            r.logStart() == 0 ? "-" : Long.toString(r.logStart()), r.logEnd(), r.version(), r.priority(),
                            r.error().isEmpty() ? r.digest() : "ERROR " + r.error());
                }
                // Only the replicas that answered: a silent one's row holds its last announced version, no digest.
                List<ReplicaStatus> answered = replicas.stream().filter(r -> r.error().isEmpty()).toList();
                long versions = answered.stream().map(ReplicaStatus::version).distinct().count();
                long digests = answered.stream().map(ReplicaStatus::digest).distinct().count();
                if (versions == 1 && digests > 1) {
                    System.out.println("DIVERGED: replicas at the same version have different digests");
                    return 3;
                }
                if (answered.size() < replicas.size()) {
                    System.out.println((replicas.size() - answered.size()) + " of " + replicas.size()
                            + " replicas did not answer; the others " + (answered.isEmpty() ? "cannot be compared"
                                    : versions == 1 ? "agree" : "are at different versions (catching up?)"));
                    return 4;
                }
                System.out.println(versions == 1 ? "consistent: one version, one digest"
                        : "replicas at different versions (catching up?)");
                return 0;
            }
        }
    }

    /** {@code admin promote}. */
    @Command(name = "promote", mixinStandardHelpOptions = true,
            description = "Make a replica the primary without waiting for every configured replica (after a total outage).")
    static final class Promote implements Callable<Integer> {
        @Mixin
        Target target;

        @Option(names = "--service", required = true)
        String service;

        @Option(names = "--partition", required = true)
        int partition;

        @Option(names = "--node", required = true)
        String nodeId;

        @Override
        public Integer call() throws Exception {
            try (NeptuneNode node = target.join()) {
                System.out.println(node.admin().promote(service, partition, nodeId).get(30, TimeUnit.SECONDS));
                return 0;
            }
        }
    }

    /** {@code admin move-primary}. */
    @Command(name = "move-primary", mixinStandardHelpOptions = true,
            description = "Hand the primary role of a partition to another caught-up replica, without losing or"
                    + " failing a write.")
    static final class MovePrimary implements Callable<Integer> {
        @Mixin
        Target target;

        @Mixin
        ReplicaOf replica;

        @Override
        public Integer call() throws Exception {
            return replica.change(target, 30, admin -> admin.movePrimary(replica.service, replica.partition,
                    replica.nodeId));
        }
    }

    /** {@code admin drain}. */
    @Command(name = "drain", mixinStandardHelpOptions = true,
            description = "Take a node out of service: it hands its primaries to other replicas, clients stop"
                    + " choosing it, it finishes its calls and exits.")
    static final class Drain implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "0", paramLabel = "NODE")
        String nodeId;

        @Option(names = "--timeout", defaultValue = "60s", paramLabel = "TIME",
                description = "Longest time the node tries before it stops anyway (default: ${DEFAULT-VALUE}).")
        String timeout;

        @Override
        public Integer call() throws Exception {
            Duration limit = ConfigNode.parseDuration("--timeout", timeout);
            try (NeptuneNode node = target.join()) {
                awaitNode(target, node, nodeId);
                List<String> primaries = node.admin().drain(nodeId, limit).get(30, TimeUnit.SECONDS);
                System.out.println(nodeId + " is draining; primaries to hand over: "
                        + (primaries.isEmpty() ? "none" : String.join(", ", primaries)));
                return DrainProgress.watch(node.admin(), nodeId, primaries, limit.plusSeconds(10)) ? 0 : 5;
            }
        }
    }

    /** {@code admin add-replica}. */
    @Command(name = "add-replica", mixinStandardHelpOptions = true,
            description = "Make a node host a partition (majority mode): it catches up as a learner while writes go"
                    + " on, then becomes a voter; it keeps hosting it across restarts (docs/protocols/placement.md).")
    static final class AddReplica implements Callable<Integer> {
        @Mixin
        Target target;

        @Mixin
        ReplicaOf replica;

        @Option(names = "--timeout", defaultValue = "60s", paramLabel = "TIME",
                description = "Longest time the new replica may take to catch up (default: ${DEFAULT-VALUE}).")
        String timeout;

        @Override
        public Integer call() throws Exception {
            Duration limit = ConfigNode.parseDuration("--timeout", timeout);
            return replica.change(target, limit.toSeconds() + 30, admin -> admin.addReplica(replica.service,
                    replica.partition, replica.nodeId, limit));
        }
    }

    /** {@code admin rebalance}. */
    @Command(name = "rebalance", mixinStandardHelpOptions = true,
            description = "Spread replicas (majority-mode services) and primary roles evenly over the live nodes: prints"
                    + " the plan, then carries it out one step at a time (docs/protocols/placement.md, Rebalance).")
    static final class Rebalance implements Callable<Integer> {
        @Mixin
        Target target;

        @Option(names = "--service", defaultValue = "", paramLabel = "SERVICE",
                description = "Only this service (default: every service in the yellow page).")
        String service;

        @Option(names = "--dry-run", description = "Print the plan and change nothing.")
        boolean dryRun;

        @Option(names = "--timeout", defaultValue = "60s", paramLabel = "TIME",
                description = "Longest time one step may take, e.g. a new replica to catch up (default: ${DEFAULT-VALUE}).")
        String timeout;

        @Override
        public Integer call() throws Exception {
            Duration limit = ConfigNode.parseDuration("--timeout", timeout);
            try (NeptuneNode node = target.join()) {
                ClusterAdmin.RebalancePlan plan = plan(node);
                plan.notes().forEach(note -> System.out.println("note: " + note));
                if (plan.steps().isEmpty()) {
                    System.out.println("balanced: nothing to do");
                    return 0;
                }
                System.out.println("plan (" + plan.steps().size() + " steps):");
                plan.steps().forEach(step -> System.out.println("  " + step));
                if (dryRun) {
                    System.out.println("dry run: nothing changed");
                    return 0;
                }
                // a step retries for up to --timeout, and its last try may take the whole catch-up --timeout again,
                // plus a host or unhost of up to 60 s and the calls around them: the budget must not end mid-step
                long seconds = plan.steps().size() * (2 * limit.toSeconds() + 90);
                try {
                    node.admin().rebalance(plan, limit, System.out::println).get(seconds, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof ClusterAdmin.RebalanceException failed) {
                        System.out.println("FAILED: " + failed.failed() + "; steps not run:");
                        failed.left().forEach(step -> System.out.println("  " + step));
                    }
                    throw e; // NeptuneCli prints the reason and exits with 2, as for every admin command
                }
                System.out.println("rebalanced: " + plan.steps().size() + " steps done");
                return 0;
            }
        }

        /** The plan, asked again while a partition has no primary in the yellow page ({@link AdminCommand#whileNoPrimaryIsHeard}). */
        private ClusterAdmin.RebalancePlan plan(NeptuneNode node) throws Exception {
            return whileNoPrimaryIsHeard(target, () -> node.admin().planRebalance(service), 60);
        }
    }
}
