package io.neptune.examples.gateway.internal;

import io.neptune.core.ClassStats;
import io.neptune.server.ClusterAdmin.NodeStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What each service class got over the last minute, cluster-wide, for the dashboard: the nodes
 * announce cumulative counters per class ({@link NodeStatus#classes()}); this keeps a minute of
 * them per node and class and sums the differences. A node that restarted (its counters went
 * down) counts from zero.
 *
 * <p>Thread-safety: thread-safe; {@link #observe} synchronizes on this object.
 */
public final class ClassHistory {
    /** How far back the dashboard looks. */
    public static final Duration WINDOW = Duration.ofMinutes(1);

    private final LongSupplier nanoTime;
    /** Per "node/service/class": samples, oldest first, covering at least the window. */
    private final Map<String, Deque<Sample>> samples = new HashMap<>();

    private record Sample(long heardNanos, ClassStats stats) {}

    /**
     * One class of one service over the window, summed over the nodes.
     *
     * @param service the service
     * @param serviceClass the class
     * @param guaranteedShare its guaranteed share of each node's workers
     * @param arrivals requests that arrived
     * @param dropped requests not served (dropped by the scheduler, refused, or expired)
     * @param offeredYield the yield the arrivals offered
     * @param realizedYield the yield the completions realised
     * @param share the class's part of the workers' time the service's classes used
     */
    public record ClassView(String service, String serviceClass, double guaranteedShare, long arrivals, long dropped,
            double offeredYield, double realizedYield, double share) {
        /** (offered − realised) / offered, in percent; 0 when nothing was offered. */
        public double lossPercent() {
            return offeredYield <= 0 ? 0 : 100 * (offeredYield - realizedYield) / offeredYield;
        }
    }

    /** Creates an empty history over {@code nanoTime} ({@code System::nanoTime} outside tests). */
    public ClassHistory(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Records {@code live}'s counters and returns the last minute per service and class, sorted. */
    public synchronized List<ClassView> observe(List<NodeStatus> live) {
        long now = nanoTime.getAsLong();
        for (NodeStatus status : live) {
            status.classes().forEach((service, classes) -> {
                for (ClassStats stats : classes) {
                    Deque<Sample> deque = samples.computeIfAbsent(status.node() + "/" + service + "/"
                            + stats.serviceClass(), k -> new ArrayDeque<>());
                    Sample last = deque.peekLast();
                    if (last == null || last.heardNanos() != status.announcedAtNanos()) {
                        deque.addLast(new Sample(status.announcedAtNanos(), stats));
                    }
                }
            });
        }
        long horizon = now - WINDOW.toNanos();
        Map<String, Totals> totals = new TreeMap<>();
        samples.values().removeIf(deque -> {
            // keep one sample at or before the horizon: the window's starting point
            while (deque.size() > 1 && second(deque).heardNanos() - horizon <= 0) {
                deque.removeFirst();
            }
            return deque.peekLast().heardNanos() - horizon < 0; // nothing heard within the window: gone
        });
        samples.forEach((key, deque) -> {
            String[] parts = key.split("/", 3);
            ClassStats first = deque.peekFirst().stats();
            ClassStats last = deque.peekLast().stats();
            boolean restarted = last.arrivals() < first.arrivals(); // counters reset: all of last is new
            ClassStats from = restarted ? null : first;
            totals.computeIfAbsent(parts[1] + "/" + parts[2], k -> new Totals(parts[1], parts[2]))
                    .add(last, from);
        });
        Map<String, Double> usedByService = new HashMap<>();
        totals.values().forEach(t -> usedByService.merge(t.service, t.used, Double::sum));
        List<ClassView> views = new ArrayList<>();
        for (Totals t : totals.values()) {
            double used = usedByService.getOrDefault(t.service, 0.0);
            views.add(new ClassView(t.service, t.serviceClass, t.guaranteedShare, t.arrivals, t.dropped, t.offered,
                    t.realized, used > 0 ? t.used / used : 0));
        }
        return views;
    }

    private static Sample second(Deque<Sample> deque) {
        var iterator = deque.iterator();
        iterator.next();
        return iterator.next();
    }

    /** One class's differences summed over the nodes. */
    private static final class Totals {
        final String service;
        final String serviceClass;
        double guaranteedShare;
        long arrivals;
        long dropped;
        double offered;
        double realized;
        double used;

        Totals(String service, String serviceClass) {
            this.service = service;
            this.serviceClass = serviceClass;
        }

        /** Adds {@code last − from} ({@code last} whole when {@code from} is null). */
        void add(ClassStats last, @Nullable ClassStats from) {
            guaranteedShare = Math.max(guaranteedShare, last.guaranteedShare());
            arrivals += last.arrivals() - (from == null ? 0 : from.arrivals());
            dropped += last.dropped() - (from == null ? 0 : from.dropped());
            offered += last.offeredYield() - (from == null ? 0 : from.offeredYield());
            realized += last.realizedYield() - (from == null ? 0 : from.realizedYield());
            used += last.usedSeconds() - (from == null ? 0 : from.usedSeconds());
        }
    }
}
