package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ClassStats;
import io.neptune.core.ReplicaRole;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What an operator can ask of the cluster through any node: who is there, the state of every
 * replica of a partition (so divergence is visible), promoting a replica by hand after a total
 * outage, moving a primary role, and draining a node. Obtained from {@link NeptuneNode#admin()}.
 *
 * <p>Thread-safety: thread-safe.
 */
public interface ClusterAdmin {
    /**
     * A node as its latest announcement describes it.
     *
     * @param node node id
     * @param pid operating-system process id
     * @param address request server address, {@code host:port}
     * @param services the services it hosts
     * @param load active + queued requests over its services
     * @param served requests it has answered since it started (0 from a node too old to say)
     * @param incarnation start time of its process in ms: a restart resets {@code served}
     * @param announcedAtNanos when this node received that announcement, on {@link System#nanoTime()}'s
     *     scale: the denominator of a rate computed from two statuses
     * @param classes per hosted service that the node schedules by class, what each service class got
     *     since the node started (arrivals, drops by reason, offered and realised yield, share); from
     *     two statuses, the rates and the LossPercent of the time between them
     * @param adminUrl the base URL of its admin port ({@code /metrics}, {@code /health/ready}), e.g.
     *     {@code http://127.0.0.1:40123}; empty when it announces none
     */
    record NodeStatus(String node, long pid, String address, List<String> services, int load, long served,
            long incarnation, long announcedAtNanos, Map<String, List<ClassStats>> classes, String adminUrl) {
        /** Copies the map. */
        public NodeStatus {
            classes = Map.copyOf(classes);
            requireNonNull(adminUrl, "adminUrl");
        }

        /** A status without an admin URL. */
        public NodeStatus(String node, long pid, String address, List<String> services, int load, long served,
                long incarnation, long announcedAtNanos, Map<String, List<ClassStats>> classes) {
            this(node, pid, address, services, load, served, incarnation, announcedAtNanos, classes, "");
        }

        /** A status without class counters. */
        public NodeStatus(String node, long pid, String address, List<String> services, int load, long served,
                long incarnation, long announcedAtNanos) {
            this(node, pid, address, services, load, served, incarnation, announcedAtNanos, Map.of());
        }
    }

    /**
     * One replica of a partition, as it answered just now.
     *
     * @param node the hosting node
     * @param role its role as it answered (as last announced when it did not answer)
     * @param epoch its current epoch
     * @param logStart the first LSN its REDO log still holds: 1 until a checkpoint dropped the records
     *     below it (a replica further behind than that installs a snapshot); 0 when it did not answer
     * @param logEnd the last LSN in its REDO log
     * @param version the last LSN applied to the service (the version reads see)
     * @param priority its static priority for the partition
     * @param digest the service's digest of the partition; empty without a {@code @Digest} method
     * @param error why the replica did not answer; empty when it did
     */
    record ReplicaStatus(String node, ReplicaRole role, long epoch, long logStart, long logEnd, long version, int priority,
            String digest, String error) {}

    /**
     * One replica as the latest announcement of its node describes it (no round trip, so it may
     * lag the replica by an announce interval).
     *
     * @param service the service
     * @param partition the partition id
     * @param node the hosting node
     * @param role its role in that announcement
     * @param priority its static priority for the partition
     * @param version the last LSN applied when it announced
     */
    record AnnouncedReplica(String service, int partition, String node, ReplicaRole role, int priority, long version) {}

    /** The nodes in this node's yellow page, sorted by id. */
    List<NodeStatus> nodes();

    /**
     * Every replica in this node's yellow page as last announced, sorted by service, partition and
     * node. Cheap: it reads the local yellow page only, so a dashboard may call it every second.
     */
    List<AnnouncedReplica> announcedReplicas();

    /** Asks every replica of {@code service#partition} in the yellow page for its state and digest. */
    CompletableFuture<List<ReplicaStatus>> replicas(String service, int partition);

    /**
     * Makes {@code node}'s replica of {@code service#partition} the primary without waiting for
     * every configured replica to come back. Completes with the replica's answer; fails when it
     * refuses (e.g. a live primary exists).
     */
    CompletableFuture<String> promote(String service, int partition, String node);

    /**
     * Moves the primary role of {@code service#partition} (level 2 or 3, either fail-over mode) to
     * {@code node}'s replica, which must be serving (caught up, not recovering). The current primary
     * holds new writes until that replica has logged every write, steps down, and the replica takes
     * over at a new epoch: no acknowledged write is lost, there are never two primaries, and the
     * writes held meanwhile go on to the new primary. The new primary keeps the role against
     * higher-priority replicas (which would otherwise take it back once caught up) until the role
     * next changes: a fail-over, a drain, or another move.
     *
     * @return a future completed with a line saying where the role went, or failed with a
     *     {@link io.neptune.core.NeptuneException} that says why: an unknown service, partition or
     *     node, a node that hosts no replica of the partition, a level-1 service (no primary), a
     *     replica that is not caught up, or no live primary to take the role from
     */
    CompletableFuture<String> movePrimary(String service, int partition, String node);

    /**
     * Asks {@code node} to drain ({@link NeptuneNode#drain(java.time.Duration)}) and then stop: it
     * hands every primary role away, clients stop choosing it, and it leaves once its calls finished
     * or {@code timeout} passed. Completes as soon as the node accepted, with the partitions
     * ({@code service#partition}) it is about to hand over; the node's departure from the yellow page
     * says that it finished.
     *
     * @return the future, failed with a {@link io.neptune.core.NeptuneException} for a node not in
     *     the yellow page or one that already drains
     */
    CompletableFuture<List<String>> drain(String node, java.time.Duration timeout);

    /**
     * Adds {@code node} as a voting replica of {@code service#partition} (majority mode only,
     * {@code docs/protocols/placement.md}): the primary first makes the partition's replica set explicit,
     * {@code node} starts hosting the partition as a learner (and keeps hosting it after a restart: its
     * placement file overrides its config), catches up from a snapshot and the log while writes go on,
     * and the primary then commits the configuration that makes it a voter. Adding a voter again changes
     * nothing.
     *
     * @param timeout how long the new replica may take to catch up
     * @return a future completed with a line naming the voters now, or failed with a
     *     {@link io.neptune.core.NeptuneException} whose message starts with a {@code NEP-PLACE-} code
     */
    CompletableFuture<String> addReplica(String service, int partition, String node, java.time.Duration timeout);

    /**
     * Removes {@code node} from the voters of {@code service#partition} (majority mode only): the primary
     * commits the configuration without it (stepping down first if it is that node), then {@code node}
     * stops hosting the partition; its log and data stay on disk. Removing a node that is no voter only
     * stops it hosting the partition.
     *
     * @return a future completed with a line naming the voters now, or failed with a
     *     {@link io.neptune.core.NeptuneException} whose message starts with a {@code NEP-PLACE-} code
     */
    CompletableFuture<String> removeReplica(String service, int partition, String node);

    /**
     * One placement change of a rebalance, carried out by {@link #addReplica}, {@link #removeReplica} or
     * {@link #movePrimary}.
     *
     * @param action what to do
     * @param service the service
     * @param partition the partition id
     * @param node the node that gains the replica, loses it, or takes the primary role
     */
    record RebalanceStep(RebalanceAction action, String service, int partition, String node) {
        /** Checks the fields. */
        public RebalanceStep {
            requireNonNull(action, "action");
            requireNonNull(service, "service");
            requireNonNull(node, "node");
        }

        /** The step as the admin command line would write it, e.g. {@code add-replica kv 3 node-4}. */
        @Override
        public String toString() {
            return action.command() + " " + service + " " + partition + " " + node;
        }
    }

    /** The kinds of {@link RebalanceStep}. */
    enum RebalanceAction {
        /** {@link #addReplica}. */
        ADD_REPLICA("add-replica"),
        /** {@link #removeReplica}. */
        REMOVE_REPLICA("remove-replica"),
        /** {@link #movePrimary}. */
        MOVE_PRIMARY("move-primary");

        private final String command;

        RebalanceAction(String command) {
            this.command = command;
        }

        /** The admin subcommand that does it. */
        public String command() {
            return command;
        }
    }

    /**
     * What a rebalance would do: the steps in the order they run, and notes on what it leaves as it
     * is and why (a fail-stop service whose replicas cannot move, a level-1 service, a partition
     * without a primary).
     */
    record RebalancePlan(List<RebalanceStep> steps, List<String> notes) {
        /** Copies the lists. */
        public RebalancePlan {
            steps = List.copyOf(steps);
            notes = List.copyOf(notes);
        }
    }

    /**
     * Plans how to spread the replicas and primary roles of {@code service} (or of every service when it
     * is empty) evenly over the live nodes that run it ({@code docs/protocols/placement.md}, "Rebalance"):
     * replicas per node within 1 of each other and primaries per node within 1, per service, with as few
     * moves as that takes. Only majority-mode services get replicas moved; fail-stop ones only primary
     * roles; level-1 services nothing. A voter of a majority-mode partition whose node is gone (no longer
     * in the yellow page) is replaced: added on a live node, then removed, so the partition gets its
     * replica count back. Changes nothing except that a majority-mode partition whose replica set is
     * still implicit gets it written down (a change of nothing, as {@link #addReplica} does first).
     *
     * @return a future completed with the plan, or failed with a {@link io.neptune.core.NeptuneException}:
     *     an unknown service, or (starting with {@code NEP-PLACE-002}) a partition of a level-2/3 service
     *     without a primary in the yellow page, which may also mean a node not heard yet
     */
    CompletableFuture<RebalancePlan> planRebalance(String service);

    /**
     * Carries out {@code plan}'s steps one at a time, each once the previous one completed, and tells
     * {@code progress} about each before and after it runs.
     *
     * @param timeout how long an added replica may take to catch up
     * @return a future completed when every step did, or failed with a {@link RebalanceException} naming
     *     the step that failed and the steps left
     */
    CompletableFuture<Void> rebalance(RebalancePlan plan, java.time.Duration timeout,
            java.util.function.Consumer<String> progress);

    /** A rebalance step failed: the plan stopped there. */
    final class RebalanceException extends io.neptune.core.NeptuneException {
        private static final long serialVersionUID = 1L;

        private final transient RebalanceStep failed;
        private final transient List<RebalanceStep> left;

        /** Creates the exception for {@code failed}, with the steps after it that did not run. */
        public RebalanceException(RebalanceStep failed, List<RebalanceStep> left, Throwable cause) {
            super("rebalance stopped: step '" + failed + "' failed: " + rootMessage(cause) + "; " + left.size()
                    + " step(s) after it not run", cause);
            this.failed = failed;
            this.left = List.copyOf(left);
        }

        /** The step that failed. */
        public RebalanceStep failed() {
            return failed;
        }

        /** The steps after it, which did not run. */
        public List<RebalanceStep> left() {
            return left;
        }

        private static String rootMessage(Throwable e) {
            Throwable cause = e;
            while (cause.getCause() != null && (cause instanceof java.util.concurrent.CompletionException
                    || cause instanceof java.util.concurrent.ExecutionException)) {
                cause = cause.getCause();
            }
            return cause.getMessage() == null ? cause.toString() : cause.getMessage();
        }
    }
}
