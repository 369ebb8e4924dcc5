package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.ClassStats;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.UnknownPartitionException;
import io.neptune.core.UnknownServiceException;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.ClusterAdmin;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** {@link ClusterAdmin} over the yellow page and the replication peer protocol. Thread-safe. */
public final class DefaultClusterAdmin implements ClusterAdmin {
    private static final int TIMEOUT_MILLIS = 5_000;
    /**
     * How long a node may take to host or unhost a partition: unhost waits up to 10 s for the replica to
     * close and 10 s for the partition's calls to end, then runs the service's {@code partitionRemoved}; host
     * opens the log and runs {@code partitionAdded}. With 5 s, a remove-replica whose voter change had
     * committed reported a bare timeout while the node was still letting go.
     */
    private static final int PLACEMENT_CALL_MILLIS = 60_000;

    private final YellowPage yellowPage;
    private final DefaultNeptuneClient client;

    /** Creates the admin view of a node. */
    public DefaultClusterAdmin(YellowPage yellowPage, DefaultNeptuneClient client) {
        this.yellowPage = yellowPage;
        this.client = client;
    }

    @Override
    public List<NodeStatus> nodes() {
        List<NodeStatus> nodes = new ArrayList<>();
        for (Announcement a : yellowPage.announcements()) {
            Map<String, List<ClassStats>> classes = new TreeMap<>();
            for (Announcement.HostedService service : a.services()) {
                if (!service.classes().isEmpty()) {
                    classes.put(service.name(), service.classes());
                }
            }
            nodes.add(new NodeStatus(a.node(), a.pid(), a.host() + ":" + a.tcpPort(),
                    a.services().stream().map(Announcement.HostedService::name).sorted().toList(), a.load(),
                    a.served(), a.incarnation(), yellowPage.heardNanos(NodeId.of(a.node())).orElse(0), classes,
                    a.adminUrl()));
        }
        nodes.sort(Comparator.comparing(NodeStatus::node));
        return nodes;
    }

    @Override
    public List<AnnouncedReplica> announcedReplicas() {
        List<AnnouncedReplica> replicas = new ArrayList<>();
        for (Announcement a : yellowPage.announcements()) {
            for (Announcement.HostedService service : a.services()) {
                for (Announcement.ReplicaState r : service.replicas()) {
                    replicas.add(new AnnouncedReplica(service.name(), r.partition(), a.node(), r.role(),
                            r.priority(), r.version()));
                }
            }
        }
        replicas.sort(Comparator.comparing(AnnouncedReplica::service).thenComparingInt(AnnouncedReplica::partition)
                .thenComparing(AnnouncedReplica::node));
        return replicas;
    }

    @Override
    public CompletableFuture<List<ReplicaStatus>> replicas(String service, int partition) {
        List<CompletableFuture<ReplicaStatus>> answers = new ArrayList<>();
        for (Replica replica : yellowPage.replicas(service, partition)) {
            answers.add(call(replica.node(), service, partition, "status").handle((json, e) -> e != null
                    ? new ReplicaStatus(replica.node().value(), replica.role(), replica.epoch(), 0, replica.logEnd(),
                            replica.version(), replica.priority(), "", rootMessage(e))
                    : new ReplicaStatus(replica.node().value(), ReplicaRole.valueOf(text(json, "role")), number(json, "epoch"),
                            number(json, "logStart"), number(json, "logEnd"), number(json, "applied"),
                            (int) number(json, "priority"), text(json, "digest"), "")));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(v -> answers.stream()
                .map(CompletableFuture::join).sorted(Comparator.comparing(ReplicaStatus::node)).toList());
    }

    @Override
    public CompletableFuture<String> promote(String service, int partition, String node) {
        return call(NodeId.of(node), service, partition, "promote").thenApply(json -> {
            if (!Boolean.TRUE.equals(json.get("accepted"))) {
                throw new NeptuneException(node + " refused to become primary of " + service + "#" + partition + ": "
                        + json.get("reason"));
            }
            return node + " is primary of " + service + "#" + partition + " at epoch " + json.get("epoch");
        });
    }

    @Override
    public CompletableFuture<String> movePrimary(String service, int partition, String node) {
        NeptuneException invalid = invalidMove(service, partition, node);
        if (invalid != null) {
            return CompletableFuture.failedFuture(invalid);
        }
        String from = yellowPage.replicas(service, partition).stream().filter(r -> r.role() == ReplicaRole.PRIMARY)
                .map(r -> r.node().value()).findFirst().orElse("(none announced)");
        return call(NodeId.of(node), ReplicationEngine.SERVICE, partition, "takeOver",
                Map.of("service", service, "partition", partition, "pin", true)).thenApply(json -> {
                    if (!Boolean.TRUE.equals(json.get("accepted"))) {
                        throw new NeptuneException(node + " did not take over the primary role of " + service + "#"
                                + partition + ": " + json.get("reason"));
                    }
                    return "already primary".equals(json.get("reason")) ? node + " is already the primary of " + service
                            + "#" + partition : "moved the primary role of " + service + "#" + partition + " from " + from
                            + " to " + node + " (epoch " + json.get("epoch") + ")";
                });
    }

    /** Why {@code node} cannot take the primary role of {@code service#partition}, or null. */
    private @Nullable NeptuneException invalidMove(String service, int partition, String node) {
        OptionalInt partitions = yellowPage.partitions(service);
        if (partitions.isEmpty()) {
            return new UnknownServiceException(service, "no node in the yellow page hosts it");
        }
        if (partition < 0 || partition >= partitions.getAsInt()) {
            return new UnknownPartitionException(service, partition, partitions.getAsInt());
        }
        if (yellowPage.announcement(NodeId.of(node)).isEmpty()) {
            return new NeptuneException("node: '" + node + "' (expected: a node in the yellow page: " + nodeIds() + ")");
        }
        if (yellowPage.consistency(service).orElse(ConsistencyLevel.LEVEL_1) == ConsistencyLevel.LEVEL_1) {
            return new NeptuneException(service + " is a level-1 (write-anywhere) service: it has no primary to move");
        }
        List<String> replicas = yellowPage.replicas(service, partition).stream().map(r -> r.node().value()).sorted()
                .toList();
        if (!replicas.contains(node)) {
            return new NeptuneException("node: '" + node + "' is not a replica of " + service + "#" + partition
                    + " (expected: one of " + replicas + ")");
        }
        return null;
    }

    @Override
    public CompletableFuture<List<String>> drain(String node, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("timeout: " + timeout
                    + " (expected: > 0)"));
        }
        if (yellowPage.announcement(NodeId.of(node)).isEmpty()) {
            return CompletableFuture.failedFuture(new NeptuneException("node: '" + node
                    + "' (expected: a node in the yellow page: " + nodeIds() + ")"));
        }
        return call(NodeId.of(node), NodeControl.SERVICE, 0, NodeControl.DRAIN,
                Map.of("timeoutMillis", timeout.toMillis())).thenApply(json -> {
                    if (!Boolean.TRUE.equals(json.get("accepted"))) {
                        throw new NeptuneException(node + " did not start draining: " + json.get("reason"));
                    }
                    Object primaries = json.get("primaries");
                    return primaries instanceof List<?> list ? list.stream().map(String::valueOf).toList() : List.of();
                });
    }

    @Override
    public CompletableFuture<String> addReplica(String service, int partition, String node, Duration timeout) {
        NeptuneException invalid = invalidPlacement(service, partition, node);
        if (invalid != null) {
            return CompletableFuture.failedFuture(invalid);
        }
        // explicit set first, so the learner is never one of the voters C0 takes over from the implicit set
        return reconfigure(service, partition, "", "", 10_000)
                .thenCompose(v -> call(NodeId.of(node), NodeControl.SERVICE, partition, NodeControl.HOST,
                        Map.of("service", service, "partition", partition), PLACEMENT_CALL_MILLIS))
                .thenCompose(json -> {
                    if (!Boolean.TRUE.equals(json.get("accepted"))) {
                        throw new NeptuneException(String.valueOf(json.get("reason")));
                    }
                    return reconfigure(service, partition, node, "", timeout.toMillis());
                })
                .thenApply(voters -> "added " + node + " to " + service + "#" + partition + "; voters now " + voters);
    }

    @Override
    public CompletableFuture<String> removeReplica(String service, int partition, String node) {
        NeptuneException invalid = invalidPlacement(service, partition, null);
        if (invalid != null) {
            return CompletableFuture.failedFuture(invalid);
        }
        CompletableFuture<List<String>> known = CompletableFuture.completedFuture(List.of());
        if (yellowPage.announcement(NodeId.of(node)).isEmpty()) {
            // a node the yellow page does not list may be a voter whose node is gone (removing it is how an operator
            // replaces it), or a typo, which the primary would answer with "is no voter" and nothing done
            known = reconfigure(service, partition, "", "", 10_000).thenApply(voters -> {
                if (!voters.contains(node)) {
                    throw new NeptuneException("NEP-PLACE-005 " + node + " is neither a voter of " + service + "#"
                            + partition + " (voters: " + voters + ") nor a node in the yellow page");
                }
                return voters;
            });
        }
        return known.thenCompose(v -> reconfigure(service, partition, "", node, 30_000)).thenCompose(voters -> {
            if (yellowPage.announcement(NodeId.of(node)).isEmpty()) {
                return CompletableFuture.completedFuture("removed " + node + " from the voters of " + service + "#"
                        + partition + " (voters now " + voters + "); " + node + " is not in the yellow page: run"
                        + " remove-replica again once it is back, or it keeps hosting the partition as a non-voter");
            }
            return call(NodeId.of(node), NodeControl.SERVICE, partition, NodeControl.UNHOST,
                    Map.of("service", service, "partition", partition), PLACEMENT_CALL_MILLIS).thenApply(json -> {
                        if (!Boolean.TRUE.equals(json.get("accepted"))) {
                            throw new NeptuneException(String.valueOf(json.get("reason")));
                        }
                        return "removed " + node + " from " + service + "#" + partition + "; voters now " + voters;
                    });
        });
    }

    @Override
    public CompletableFuture<RebalancePlan> planRebalance(String service) {
        List<String> services;
        if (service.isEmpty()) {
            services = yellowPage.announcements().stream().flatMap(a -> a.services().stream())
                    .map(Announcement.HostedService::name).distinct().sorted().toList();
        } else if (yellowPage.partitions(service).isEmpty()) {
            return CompletableFuture.failedFuture(new UnknownServiceException(service, "no node in the yellow page hosts it"));
        } else {
            services = List.of(service);
        }
        CompletableFuture<RebalancePlan> plan = CompletableFuture.completedFuture(new RebalancePlan(List.of(), List.of()));
        for (String name : services) {
            plan = plan.thenCompose(sofar -> planService(name).thenApply(next -> {
                List<RebalanceStep> steps = new ArrayList<>(sofar.steps());
                steps.addAll(next.steps());
                List<String> notes = new ArrayList<>(sofar.notes());
                notes.addAll(next.notes());
                return new RebalancePlan(steps, notes);
            }));
        }
        return plan;
    }

    /** The plan of one service, from the yellow page and the replication mode its primaries report. */
    private CompletableFuture<RebalancePlan> planService(String service) {
        if (yellowPage.consistency(service).orElse(ConsistencyLevel.LEVEL_1) == ConsistencyLevel.LEVEL_1) {
            return CompletableFuture.completedFuture(new RebalancePlan(List.of(), List.of(service + " is level 1"
                    + " (write-anywhere): it has no primaries, and its placement changes only through the node configs")));
        }
        int partitions = yellowPage.partitions(service).orElse(0);
        java.util.SortedMap<Integer, List<Rebalancer.Replica>> layout = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            List<Replica> replicas = yellowPage.replicas(service, p);
            if (replicas.stream().noneMatch(r -> r.role() == ReplicaRole.PRIMARY)) {
                // a primary not heard yet may mean a node not heard yet, whose replicas a plan would not see
                return CompletableFuture.failedFuture(new NeptuneException("NEP-PLACE-002 " + service + "#" + p
                        + " has no primary in the yellow page: retry once one is elected (or wait longer for"
                        + " announcements)"));
            }
            layout.put(p, replicas.stream()
                    .map(r -> new Rebalancer.Replica(r.node().value(), r.role() == ReplicaRole.PRIMARY)).toList());
        }
        java.util.SortedSet<String> live = new java.util.TreeSet<>();
        for (Announcement a : yellowPage.announcements()) {
            if (!a.draining() && a.services().stream().anyMatch(h -> h.name().equals(service))) {
                live.add(a.node());
            }
        }
        return mode(service, 0, partitions).thenCompose(mode -> {
            if (mode != Rebalancer.Mode.MAJORITY) {
                return CompletableFuture.completedFuture(Rebalancer.plan(new Rebalancer.Layout(service, mode, layout,
                        live)));
            }
            List<String> notes = new ArrayList<>();
            return withGoneVoters(service, layout, notes).thenApply(full -> {
                RebalancePlan plan = Rebalancer.plan(new Rebalancer.Layout(service, mode, full, live));
                notes.addAll(plan.notes());
                return new RebalancePlan(plan.steps(), notes);
            });
        });
    }

    /**
     * {@code layout} as each partition's primary names its voters ({@link Rebalancer#voting}): a voter the
     * yellow page no longer lists (its node is gone) is a replica on a node that may take none, which the plan
     * moves to a live node, restoring the partition's replica count; a listed replica that is no voter does
     * not count. A partition whose voters cannot be read keeps what the yellow page lists, with a note saying
     * why.
     */
    private CompletableFuture<java.util.SortedMap<Integer, List<Rebalancer.Replica>>> withGoneVoters(String service,
            java.util.SortedMap<Integer, List<Rebalancer.Replica>> layout, List<String> notes) {
        Map<Integer, CompletableFuture<List<String>>> voters = new TreeMap<>();
        layout.keySet().forEach(p -> voters.put(p, reconfigure(service, p, "", "", 10_000)));
        return CompletableFuture.allOf(voters.values().toArray(CompletableFuture[]::new)).handle((v, ignored) -> {
            java.util.SortedMap<Integer, List<Rebalancer.Replica>> full = new TreeMap<>();
            layout.forEach((p, replicas) -> {
                CompletableFuture<List<String>> named = requireNonNull(voters.get(p));
                if (named.isCompletedExceptionally()) {
                    String why = named.handle((x, e) -> rootMessage(e)).join();
                    notes.add(service + "#" + p + ": its voters could not be read (" + why + "); a replica on a node"
                            + " that is gone is not replaced");
                    full.put(p, replicas);
                } else {
                    full.put(p, Rebalancer.voting(service, p, replicas, named.join(), notes));
                }
            });
            return full;
        });
    }

    /**
     * Whether {@code service} is in majority mode, as the primary of the first partition from {@code partition}
     * on that answers says: an empty placement change ({@code reconfigure {}}) is refused with NEP-PLACE-001 by
     * a fail-stop primary and accepted (making the replica set explicit, a change of nothing) by a majority one.
     */
    private CompletableFuture<Rebalancer.Mode> mode(String service, int partition, int partitions) {
        return reconfigure(service, partition, "", "", 10_000).handle((voters, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(Rebalancer.Mode.MAJORITY);
            }
            if (rootMessage(e).contains("NEP-PLACE-001")) {
                return CompletableFuture.completedFuture(Rebalancer.Mode.FAIL_STOP);
            }
            if (partition + 1 < partitions) {
                return mode(service, partition + 1, partitions);
            }
            return CompletableFuture.<Rebalancer.Mode>failedFuture(new NeptuneException("cannot tell whether " + service
                    + " is in majority mode: no primary of its partitions answered (last: " + rootMessage(e)
                    + "); retry once they have primaries", e));
        }).thenCompose(f -> f);
    }

    @Override
    public CompletableFuture<Void> rebalance(RebalancePlan plan, Duration timeout, Consumer<String> progress) {
        CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
        List<RebalanceStep> steps = plan.steps();
        for (int i = 0; i < steps.size(); i++) {
            RebalanceStep step = steps.get(i);
            List<RebalanceStep> left = steps.subList(i + 1, steps.size());
            String counter = "[" + (i + 1) + "/" + steps.size() + "] ";
            done = done.thenCompose(v -> {
                progress.accept(counter + step + " ...");
                long deadline = System.nanoTime() + timeout.toNanos();
                return retrying(step, timeout, deadline).handle((result, e) -> {
                    if (e != null) {
                        throw new RebalanceException(step, left, e);
                    }
                    progress.accept(counter + result);
                    return null;
                });
            });
        }
        return done;
    }

    /**
     * Runs {@code step}, again every half second while it fails for a reason that passes by itself: the
     * yellow page still names the previous primary or does not list a replica just added (it lags by an
     * announce interval), or the replica to take over is still catching up.
     */
    private CompletableFuture<String> retrying(RebalanceStep step, Duration timeout, long deadlineNanos) {
        CompletableFuture<String> attempt = switch (step.action()) {
            case ADD_REPLICA -> addReplica(step.service(), step.partition(), step.node(), timeout);
            case REMOVE_REPLICA -> removeReplica(step.service(), step.partition(), step.node());
            case MOVE_PRIMARY -> movePrimary(step.service(), step.partition(), step.node());
        };
        return attempt.handle((result, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(result);
            }
            if (!passesByItself(rootMessage(e)) || System.nanoTime() - deadlineNanos > 0) {
                return CompletableFuture.<String>failedFuture(e);
            }
            return CompletableFuture.supplyAsync(() -> null,
                    CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS))
                    .thenCompose(v -> retrying(step, timeout, deadlineNanos));
        }).thenCompose(f -> f);
    }

    /**
     * Whether a step that failed with {@code why} may succeed if run again, with nothing changed by
     * hand: the yellow page lags (no primary listed yet, a replica just added not listed, or a live
     * node missing for an announce interval on a loaded machine), the replica to take over is still
     * catching up, or an election or another handover is under way (or the take-over's election was lost). Running a step again is safe:
     * each one checks the placement and roles it finds before it changes anything.
     */
    static boolean passesByItself(String why) {
        return why.contains("NEP-PLACE-002") || why.contains("not caught up") || why.contains("is not a replica of")
                || why.contains("did not answer the handover") || why.contains("an election is under way")
                || why.contains(" needed votes")
                || why.contains("; ask again");
    }

    /** Sends a placement change to the partition's primary; completes with the voters once it committed. */
    private CompletableFuture<List<String>> reconfigure(String service, int partition, String add, String remove,
            long timeoutMillis) {
        NodeId primary = yellowPage.replicas(service, partition).stream().filter(r -> r.role() == ReplicaRole.PRIMARY)
                .map(r -> r.node()).findFirst().orElse(null);
        if (primary == null) {
            return CompletableFuture.failedFuture(new NeptuneException("NEP-PLACE-002 " + service + "#" + partition
                    + " has no primary in the yellow page: retry once one is elected"));
        }
        Map<String, Object> body = Map.of("service", service, "partition", partition, "add", add, "remove", remove,
                "timeoutMillis", timeoutMillis);
        return call(primary, ReplicationEngine.SERVICE, partition, "reconfigure", body, timeoutMillis + TIMEOUT_MILLIS)
                .thenApply(json -> {
                    if (!Boolean.TRUE.equals(json.get("accepted"))) {
                        throw new NeptuneException(String.valueOf(json.get("reason")));
                    }
                    Object voters = json.get("voters");
                    return voters instanceof List<?> list ? list.stream().map(String::valueOf).toList() : List.of();
                });
    }

    /** Why the placement of {@code service#partition} cannot change (on {@code node}, if named), or null. */
    private @Nullable NeptuneException invalidPlacement(String service, int partition, @Nullable String node) {
        OptionalInt partitions = yellowPage.partitions(service);
        if (partitions.isEmpty()) {
            return new UnknownServiceException(service, "no node in the yellow page hosts it");
        }
        if (partition < 0 || partition >= partitions.getAsInt()) {
            return new UnknownPartitionException(service, partition, partitions.getAsInt());
        }
        if (node != null && yellowPage.announcement(NodeId.of(node)).isEmpty()) {
            return new NeptuneException("NEP-PLACE-005 node: '" + node + "' (expected: a node in the yellow page: "
                    + nodeIds() + ")");
        }
        if (yellowPage.consistency(service).orElse(ConsistencyLevel.LEVEL_1) == ConsistencyLevel.LEVEL_1) {
            return new NeptuneException("NEP-PLACE-001 " + service + " is a level-1 (write-anywhere) service: its"
                    + " placement changes only through the node configs");
        }
        return null;
    }

    private List<String> nodeIds() {
        return yellowPage.announcements().stream().map(Announcement::node).sorted().toList();
    }

    private CompletableFuture<Map<String, Object>> call(NodeId node, String service, int partition, String method) {
        return call(node, ReplicationEngine.SERVICE, partition, method, Map.of("service", service, "partition", partition));
    }

    private CompletableFuture<Map<String, Object>> call(NodeId node, String target, int partition, String method,
            Map<String, Object> body) {
        return call(node, target, partition, method, body, TIMEOUT_MILLIS);
    }

    private CompletableFuture<Map<String, Object>> call(NodeId node, String target, int partition, String method,
            Map<String, Object> body, long timeoutMillis) {
        byte[] payload;
        try {
            payload = Json.mapper().writeValueAsBytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RequestMessage request = new RequestMessage(0, target, partition, method, AccessMode.WRITE,
                (int) Math.min(Integer.MAX_VALUE, timeoutMillis), 0, RequestId.NONE, payload);
        return client.sendTo(node, request, partition).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .thenApply(response -> {
                    if (response.status() != Status.OK) {
                        throw new NeptuneException(node + ": " + response.status() + " " + response.errorMessage());
                    }
                    try {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> json = Json.mapper().readValue(response.payload(), Map.class);
                        return json;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
    }

    private static String text(Map<String, Object> json, String key) {
        Object value = json.get(key);
        return value == null ? "" : value.toString();
    }

    private static long number(Map<String, Object> json, String key) {
        Object value = json.get(key);
        return value instanceof Number n ? n.longValue() : 0;
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }
}
