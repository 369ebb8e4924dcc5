package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.neptune.client.internal.ServerPartitioning.Demand;
import io.neptune.core.ClassStats;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Section 4.3's server partitioning: the allocation in both regimes, its layout, and where calls go. */
class ServerPartitioningTest {
    private static final double EPSILON = 1e-9;

    @Test
    void belowCapacityEachClassGetsItsDemandAndTheRestInProportion() {
        Map<String, Double> allocation = ServerPartitioning.allocate(List.of(new Demand("gold", 1, 0, 4),
                new Demand("bronze", 3, 0, 1)), 8);
        assertThat(allocation.get("gold")).isCloseTo(2, within(EPSILON)); // 1 + 4 * 1/4
        assertThat(allocation.get("bronze")).isCloseTo(6, within(EPSILON)); // 3 + 4 * 3/4
        assertThat(ServerPartitioning.allocate(List.of(new Demand("a", 0, 0, 1), new Demand("b", 0, 0, 1)), 4))
                .as("no demand at all: an even split").containsEntry("a", 2.0).containsEntry("b", 2.0);
    }

    @Test
    void aboveCapacityGuaranteesComeFirstThenTheHighestYieldPerUnitOfResource() {
        Map<String, Double> allocation = ServerPartitioning.allocate(List.of(
                new Demand("gold", 3, 0.2, 8),     // 4 yield per 0.5 s
                new Demand("silver", 6, 0.2, 2),
                new Demand("bronze", 10, 0.2, 1)), 10);
        // first round: min(demand, 0.2 * 10) = 2 each; the 4 left go to gold (1 more) then silver (3 more)
        assertThat(allocation.get("gold")).isCloseTo(3, within(EPSILON));
        assertThat(allocation.get("silver")).isCloseTo(5, within(EPSILON));
        assertThat(allocation.get("bronze")).isCloseTo(2, within(EPSILON));
        assertThat(allocation.values().stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(10, within(EPSILON));
    }

    @Test
    void wholeServersAreDedicatedAndFractionsShareThePool() {
        List<NodeId> servers = List.of(NodeId.of("n0"), NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"),
                NodeId.of("n4"));
        Map<String, Map<NodeId, Double>> layout = ServerPartitioning.layout(servers,
                Map.of("a", 2.4, "b", 1.3, "c", 1.3));
        assertThat(layout.get("a")).containsEntry(NodeId.of("n0"), 1.0).containsEntry(NodeId.of("n1"), 1.0);
        assertThat(layout.get("b")).containsEntry(NodeId.of("n2"), 1.0);
        assertThat(layout.get("c")).containsEntry(NodeId.of("n3"), 1.0);
        // the shared pool is n4: a 0.4, b 0.3, c 0.3
        assertThat(layout.get("a").get(NodeId.of("n4"))).isCloseTo(0.4, within(EPSILON));
        assertThat(layout.get("b").get(NodeId.of("n4"))).isCloseTo(0.3, within(EPSILON));
        assertThat(layout.get("c").get(NodeId.of("n4"))).isCloseTo(0.3, within(EPSILON));
    }

    @Test
    void callsGoToTheServersOfTheirClassFromTheDemandTheNodesAnnounced() throws Exception {
        AtomicLong nanos = new AtomicLong(1_000_000_000L);
        YellowPage page = new YellowPage(NodeId.of("client"), Duration.ofSeconds(60), nanos::get);
        List<List<Replica>> offered = new ArrayList<>();
        ReplicaSelector first = (service, partition, candidates) -> {
            offered.add(candidates);
            return CompletableFuture.completedFuture(candidates.get(0));
        };
        ServerPartitioning policy = new ServerPartitioning(page, first, nanos::get, Duration.ofSeconds(10));
        // 4 nodes with 1 worker each; no interval measured yet: an even split
        for (int n = 0; n < 4; n++) {
            page.update(announce(n, 1, stats("gold", 0, 0, 0), stats("bronze", 0, 0, 0)));
        }
        List<Replica> all = page.replicas("svc", 0);
        policy.select("svc", 0, "gold", all).get();
        assertThat(nodes(offered.get(0))).containsExactly("n2", "n3");

        // in 10 s: gold 100 arrivals of 0.1 s (1 server), bronze 300 of 0.1 s (3 servers): exactly full
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        for (int n = 0; n < 4; n++) {
            page.update(announce(n, 2, stats("gold", 25, 25, 2.5), stats("bronze", 75, 75, 7.5)));
        }
        policy.select("svc", 0, "gold", all).get();
        assertThat(nodes(offered.get(1))).as("bronze comes first by name: n0-n2; gold gets n3").containsExactly("n3");
        policy.select("svc", 0, "bronze", all).get();
        assertThat(nodes(offered.get(2))).containsExactly("n0", "n1", "n2");
        policy.select("svc", 0, "platinum", all).get();
        assertThat(offered.get(3)).as("a class with no allocation goes anywhere").hasSize(4);
        // n3 gone (its announcement expired): gold's calls have nowhere of their own until the next interval
        policy.select("svc", 0, "gold", all.subList(0, 3)).get();
        assertThat(nodes(offered.get(4))).containsExactly("n0", "n1", "n2");
    }

    @Test
    void aServerThatLeavesTakesOnlyItsOwnCountersOutOfTheDemand() throws Exception {
        AtomicLong nanos = new AtomicLong(1_000_000_000L);
        YellowPage page = new YellowPage(NodeId.of("client"), Duration.ofSeconds(60), nanos::get);
        List<List<Replica>> offered = new ArrayList<>();
        ReplicaSelector first = (service, partition, candidates) -> {
            offered.add(candidates);
            return CompletableFuture.completedFuture(candidates.get(0));
        };
        ServerPartitioning policy = new ServerPartitioning(page, first, nanos::get, Duration.ofSeconds(10));
        for (int n = 0; n < 4; n++) {
            page.update(announce(n, 1, gold(0, 0, 0), stats("bronze", 0, 0, 0)));
        }
        policy.select("svc", 0, "gold", page.replicas("svc", 0)).get();
        // in 10 s: gold 100 arrivals of 0.1 s, all on n3 (1 server); bronze 300 on n0-n2 (3 servers)
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        for (int n = 0; n < 3; n++) {
            page.update(announce(n, 2, gold(0, 0, 0), stats("bronze", 100, 100, 10)));
        }
        page.update(announce(3, 2, gold(100, 100, 10), stats("bronze", 0, 0, 0)));
        policy.select("svc", 0, "gold", page.replicas("svc", 0)).get();
        assertThat(nodes(offered.get(1))).containsExactly("n3");

        // n3 leaves; in the next 10 s gold's 100 arrivals land on n0-n2, bronze's 300 too: 4 servers of
        // demand on 3, gold first by yield per unit of resource. The counters n3 took with it are not a
        // drop in gold's demand.
        page.remove(NodeId.of("n3"), "left");
        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        page.update(announce(0, 3, gold(40, 40, 4), stats("bronze", 200, 200, 20)));
        page.update(announce(1, 3, gold(30, 30, 3), stats("bronze", 200, 200, 20)));
        page.update(announce(2, 3, gold(30, 30, 3), stats("bronze", 200, 200, 20)));
        policy.select("svc", 0, "gold", page.replicas("svc", 0)).get();
        assertThat(offered.get(2)).as("gold keeps one server of its own").hasSize(1);
        policy.select("svc", 0, "bronze", page.replicas("svc", 0)).get();
        assertThat(offered.get(3)).as("bronze gets the other two").hasSize(2);
    }

    private static List<String> nodes(List<Replica> replicas) {
        return replicas.stream().map(r -> r.node().value()).toList();
    }

    private static ClassStats stats(String serviceClass, long arrivals, long completed, double usedSeconds) {
        return new ClassStats(serviceClass, 0, 0, 0, arrivals, completed, 0, 0, 0, arrivals, arrivals, usedSeconds);
    }

    /** Gold: full yield 4 per request, where {@link #stats} offers 1. */
    private static ClassStats gold(long arrivals, long completed, double usedSeconds) {
        return new ClassStats("gold", 0, 0, 0, arrivals, completed, 0, 0, 0, 4.0 * arrivals, 4.0 * arrivals,
                usedSeconds);
    }

    private static Announcement announce(int n, long sequence, ClassStats... classes) {
        String node = "n" + n;
        int port = 30_000 + 2 * n;
        Announcement.HostedService service = new Announcement.HostedService("svc", 1, 0,
                List.of(new Announcement.ReplicaState(0, 0, ReplicaRole.SECONDARY, 0)), ConsistencyLevel.LEVEL_1, 0,
                List.of(classes), 1);
        return new Announcement(node, "127.0.0.1", port, port + 1, 1, 1, sequence, 0, List.of(service));
    }
}
