package io.neptune.server.internal;

import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.ClassStats;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.ClusterAdmin;
import io.neptune.server.internal.replication.ReplicationEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** {@link ClusterAdmin} over the yellow page and the replication peer protocol. Thread-safe. */
public final class DefaultClusterAdmin implements ClusterAdmin {
    private static final int TIMEOUT_MILLIS = 5_000;

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
                    ? new ReplicaStatus(replica.node().value(), replica.role(), replica.epoch(), replica.logEnd(),
                            replica.version(), replica.priority(), "", rootMessage(e))
                    : new ReplicaStatus(replica.node().value(), ReplicaRole.valueOf(text(json, "role")), number(json, "epoch"),
                            number(json, "logEnd"), number(json, "applied"), (int) number(json, "priority"),
                            text(json, "digest"), "")));
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

    private CompletableFuture<Map<String, Object>> call(NodeId node, String service, int partition, String method) {
        byte[] payload;
        try {
            payload = Json.mapper().writeValueAsBytes(Map.of("service", service, "partition", partition));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RequestMessage request = new RequestMessage(0, ReplicationEngine.SERVICE, partition, method, AccessMode.WRITE,
                TIMEOUT_MILLIS, 0, RequestId.NONE, payload);
        return client.sendTo(node, request, partition).orTimeout(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
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
