package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ClassStats;
import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Server partitioning, the comparison scheme of the dissertation's section 4.3: every interval, the
 * servers of a service are divided among its service classes from the demand each class showed in
 * the last interval, and a call goes to a server of its class. Neptune's own answer is class-aware
 * random polling with class-aware node scheduling; this is the baseline it is measured against.
 *
 * <p>Demand comes from what the nodes announce per class ({@link ClassStats}): arrivals in the
 * interval times the class's mean cost per request, divided by a server's capacity (its workers).
 * Every client computes the same partitioning from the same announcements, so none is needed as a
 * cluster-wide scheduler; between recomputations a failed server leaves its classes short, as in
 * the dissertation.
 *
 * <p>Thread-safety: thread-safe; one service's partitioning is recomputed under its own lock.
 */
final class ServerPartitioning implements ReplicaSelector {
    private final YellowPage yellowPage;
    private final ReplicaSelector within;
    private final LongSupplier clock;
    private final long intervalNanos;
    private final Map<String, ServiceState> services = new ConcurrentHashMap<>();

    /**
     * Creates the policy.
     *
     * @param yellowPage where the nodes' class counters come from
     * @param within how to choose among the servers allocated to a call's class (random polling)
     * @param clock nanoseconds
     * @param interval how often to re-partition
     */
    ServerPartitioning(YellowPage yellowPage, ReplicaSelector within, LongSupplier clock, Duration interval) {
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
        this.within = requireNonNull(within, "within");
        this.clock = requireNonNull(clock, "clock");
        this.intervalNanos = interval.toNanos();
    }

    @Override
    public CompletableFuture<Replica> select(String service, int partition, List<Replica> candidates) {
        return within.select(service, partition, candidates);
    }

    @Override
    public CompletableFuture<Replica> select(String service, int partition, String serviceClass,
            List<Replica> candidates) {
        Map<NodeId, Double> weights = services.computeIfAbsent(service, s -> new ServiceState())
                .layout(service, clock.getAsLong()).getOrDefault(serviceClass, Map.of());
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<Replica> allowed = new ArrayList<>(candidates.size());
        List<Replica> shared = new ArrayList<>(candidates.size());
        for (Replica candidate : candidates) {
            double weight = weights.getOrDefault(candidate.node(), 0.0);
            if (weight >= 1 || weight > 0 && random.nextDouble() < weight) {
                allowed.add(candidate); // a fraction f of a shared server: in the poll set f of the time
            } else if (weight > 0) {
                shared.add(candidate);
            }
        }
        if (allowed.isEmpty()) {
            allowed = shared.isEmpty() ? candidates : shared; // nothing allocated here (yet): any server
        }
        return within.select(service, partition, serviceClass, allowed);
    }

    /** The partitioning of one service and the counters it was computed from. */
    private final class ServiceState {
        private long computedAt = Long.MIN_VALUE;
        /** Each node's class counters at the last recomputation. */
        private Map<NodeId, Map<String, ClassStats>> previous = Map.of();
        private volatile Map<String, Map<NodeId, Double>> layout = Map.of();

        Map<String, Map<NodeId, Double>> layout(String service, long now) {
            if (computedAt != Long.MIN_VALUE && now - computedAt < intervalNanos) {
                return layout;
            }
            synchronized (this) {
                if (computedAt == Long.MIN_VALUE || now - computedAt >= intervalNanos) {
                    recompute(service, now);
                }
                return layout;
            }
        }

        private void recompute(String service, long now) {
            List<NodeId> servers = new ArrayList<>();
            Map<NodeId, Map<String, ClassStats>> counters = new HashMap<>();
            Map<String, Totals> totals = new TreeMap<>();
            Map<String, Totals> interval = new TreeMap<>();
            int workers = 0;
            for (Announcement a : yellowPage.announcements()) {
                for (Announcement.HostedService hosted : a.services()) {
                    if (!hosted.name().equals(service)) {
                        continue;
                    }
                    NodeId node = NodeId.of(a.node());
                    servers.add(node);
                    workers += Math.max(1, hosted.workers());
                    Map<String, ClassStats> before = previous.getOrDefault(node, Map.of());
                    Map<String, ClassStats> mine = new HashMap<>();
                    for (ClassStats c : hosted.classes()) {
                        mine.put(c.serviceClass(), c);
                        totals.computeIfAbsent(c.serviceClass(), k -> new Totals()).add(c);
                        interval.computeIfAbsent(c.serviceClass(), k -> new Totals()).addSince(c,
                                before.get(c.serviceClass()));
                    }
                    counters.put(node, mine);
                }
            }
            servers.sort(Comparator.comparing(NodeId::value));
            double seconds = computedAt == Long.MIN_VALUE ? 0 : (now - computedAt) / 1e9;
            double perServer = servers.isEmpty() ? 1 : (double) workers / servers.size();
            List<Demand> demands = new ArrayList<>();
            for (Map.Entry<String, Totals> e : totals.entrySet()) {
                Totals t = e.getValue();
                Totals last = requireNonNull(interval.get(e.getKey()), "interval: added with totals");
                double cost = last.completed > 0 ? last.usedSeconds / last.completed
                        : t.completed > 0 ? t.usedSeconds / t.completed : 0;
                double servedDemand = seconds > 0 ? last.arrivals * cost / seconds / perServer : 0;
                double fullYield = t.arrivals > 0 ? t.offeredYield / t.arrivals : 0;
                demands.add(new Demand(e.getKey(), servedDemand, t.guaranteedShare,
                        cost > 0 ? fullYield / cost : fullYield));
            }
            previous = counters;
            computedAt = now;
            layout = ServerPartitioning.layout(servers, allocate(demands, servers.size()));
        }
    }

    /** One class's counters summed over the service's nodes. */
    private static final class Totals {
        long arrivals;
        long completed;
        double usedSeconds;
        double offeredYield;
        double guaranteedShare;

        void add(ClassStats c) {
            arrivals += c.arrivals();
            completed += c.completed();
            usedSeconds += c.usedSeconds();
            offeredYield += c.offeredYield();
            guaranteedShare = Math.max(guaranteedShare, c.guaranteedShare());
        }

        /**
         * Adds what one node counted since {@code before}, its counters at the last recomputation:
         * all of {@code c} when the node is new or restarted (its counters went back), so a node
         * that leaves or comes back never makes a class's demand look negative.
         */
        void addSince(ClassStats c, @Nullable ClassStats before) {
            if (before == null || c.arrivals() < before.arrivals() || c.completed() < before.completed()) {
                add(c);
                return;
            }
            arrivals += c.arrivals() - before.arrivals();
            completed += c.completed() - before.completed();
            usedSeconds += Math.max(0, c.usedSeconds() - before.usedSeconds());
            offeredYield += Math.max(0, c.offeredYield() - before.offeredYield());
            guaranteedShare = Math.max(guaranteedShare, c.guaranteedShare());
        }
    }

    /**
     * What one class asks for.
     *
     * @param serviceClass the class
     * @param servers its demand in servers (arrival rate times cost per request, over a server's capacity)
     * @param guaranteedShare its guaranteed fraction of the servers
     * @param priority its full yield per unit of resource: who gets the rest under overload
     */
    record Demand(String serviceClass, double servers, double guaranteedShare, double priority) {}

    /**
     * Section 4.3's allocation of {@code servers} among the classes (fractions allowed). When the
     * demand fits, every class gets its demand and the rest is shared in proportion to demand (evenly
     * when nothing was demanded). When it does not, every class first gets its demand or its
     * guaranteed share, whichever is smaller, then the rest goes to the classes by priority (full
     * yield per unit of resource), each up to its demand.
     */
    static Map<String, Double> allocate(List<Demand> demands, int servers) {
        Map<String, Double> allocation = new LinkedHashMap<>();
        if (demands.isEmpty() || servers == 0) {
            return allocation;
        }
        double total = demands.stream().mapToDouble(Demand::servers).sum();
        if (total <= servers) {
            for (Demand d : demands) {
                double spare = servers - total;
                allocation.put(d.serviceClass(), d.servers() + (total > 0 ? spare * d.servers() / total
                        : spare / demands.size()));
            }
            return allocation;
        }
        double left = servers;
        for (Demand d : demands) {
            double first = Math.min(d.servers(), d.guaranteedShare() * servers);
            allocation.put(d.serviceClass(), first);
            left -= first;
        }
        List<Demand> byPriority = new ArrayList<>(demands);
        byPriority.sort(Comparator.comparingDouble(Demand::priority).reversed().thenComparing(Demand::serviceClass));
        for (Demand d : byPriority) {
            double more = Math.min(left, d.servers() - allocation.getOrDefault(d.serviceClass(), 0.0));
            if (more > 0) {
                allocation.merge(d.serviceClass(), more, Double::sum);
                left -= more;
            }
        }
        return allocation;
    }

    /**
     * Places an allocation on {@code servers}, as weights per class and server: each class gets
     * whole servers from the dedicated pool for the integral part of its allocation (weight 1), in
     * class-name order; the fractional parts are packed, in the same order, into the servers left
     * (the shared pool), each piece weighing its fraction of that server.
     */
    static Map<String, Map<NodeId, Double>> layout(List<NodeId> servers, Map<String, Double> allocation) {
        Map<String, Map<NodeId, Double>> layout = new HashMap<>();
        List<String> classes = new ArrayList<>(allocation.keySet());
        classes.sort(Comparator.naturalOrder());
        int next = 0;
        for (String c : classes) {
            int whole = (int) Math.floor(allocation.getOrDefault(c, 0.0) + 1e-9);
            for (int i = 0; i < whole && next < servers.size(); i++) {
                layout.computeIfAbsent(c, k -> new HashMap<>()).put(servers.get(next++), 1.0);
            }
        }
        double used = 0; // of servers.get(next), the first shared server
        for (String c : classes) {
            double share = allocation.getOrDefault(c, 0.0);
            double fraction = share - Math.floor(share + 1e-9);
            while (fraction > 1e-9 && next < servers.size()) {
                double piece = Math.min(fraction, 1 - used);
                layout.computeIfAbsent(c, k -> new HashMap<>()).merge(servers.get(next), piece, Double::sum);
                fraction -= piece;
                used += piece;
                if (used >= 1 - 1e-9) {
                    next++;
                    used = 0;
                }
            }
        }
        return layout;
    }
}
