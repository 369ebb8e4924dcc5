package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local service yellow page: soft state built from node announcements (DESIGN §4).
 *
 * <p>An entry lives until it is unheard for the expiry time, until the membership view drops its
 * node, or until {@value #MAX_CONNECT_FAILURES} connection attempts to its node failed in a row;
 * an excluded node comes back with its next announcement.
 *
 * <p>Thread-safety: thread-safe. Writers serialize on {@code lock} and publish an immutable
 * {@link Snapshot}; lookups read the current snapshot without locking.
 */
public final class YellowPage {
    /** Failed connection attempts after which a node is excluded until it is heard again. */
    public static final int MAX_CONNECT_FAILURES = 3;

    private static final Logger logger = LoggerFactory.getLogger(YellowPage.class);

    private static final long NEVER_CHECKED = Long.MIN_VALUE;

    private final NodeId self;
    private final long expiryNanos;
    private final LongSupplier nanoTime;
    private final Object lock = new Object();
    // @GuardedBy("lock")
    private final Map<NodeId, Entry> entries = new HashMap<>();
    private volatile Snapshot snapshot = Snapshot.EMPTY;
    private final List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Entries removed because they went unheard for the expiry time; a metric. */
    private final AtomicLong expiries = new AtomicLong();
    /** Entries removed because the membership view dropped their node; a metric. */
    private final AtomicLong departures = new AtomicLong();

    private record Entry(Announcement announcement, long heardNanos, int failures, boolean excluded) {}

    /**
     * When {@link #expire(Duration)} last ran, or {@link #NEVER_CHECKED}: the task starts once the
     * JGroups join returns, and however long that took, it was no pause. Guarded by {@code lock}.
     */
    private long lastCheckNanos = NEVER_CHECKED;

    /**
     * Creates an empty yellow page.
     *
     * @param self the owning node, used in log lines
     * @param expiry how long an unheard entry lives
     * @param nanoTime the clock, {@code System::nanoTime} outside tests
     */
    public YellowPage(NodeId self, Duration expiry, LongSupplier nanoTime) {
        this.self = requireNonNull(self, "self");
        this.expiryNanos = expiry.toNanos();
        this.nanoTime = requireNonNull(nanoTime, "nanoTime");
    }

    /** Records an announcement; stale ones (older incarnation or sequence) are ignored. */
    public void update(Announcement announcement) {
        NodeId node = NodeId.of(announcement.node());
        long now = nanoTime.getAsLong();
        synchronized (lock) {
            Entry previous = entries.get(node);
            if (previous != null && isStale(announcement, previous.announcement())) {
                return;
            }
            // Hearing a node lifts its exclusion, but does not forget connection failures while it is
            // not excluded: it announces every second, and a count reset as often would never reach the limit.
            // A new process (incarnation) starts afresh: the failures were its predecessor's.
            int failures = previous == null || previous.excluded()
                    || previous.announcement().incarnation() != announcement.incarnation() ? 0 : previous.failures();
            entries.put(node, new Entry(announcement, now, failures, false));
            Snapshot next;
            try {
                next = build();
            } catch (RuntimeException e) { // the page must not be stuck on one node's bad announcement
                if (previous == null) {
                    entries.remove(node);
                } else {
                    entries.put(node, previous);
                }
                logger.warn("{}: ignored an announcement of {} that the yellow page cannot hold: {}", self, node,
                        e.toString());
                return;
            }
            if (previous == null) {
                logger.info("{}: {} joined the yellow page ({}:{}, {} services)", self, node, announcement.host(),
                        announcement.tcpPort(), announcement.services().size());
            } else if (previous.excluded()) {
                logger.info("{}: {} is heard again; no longer excluded", self, node);
            }
            publish(next);
        }
    }

    private static boolean isStale(Announcement candidate, Announcement current) {
        if (candidate.incarnation() != current.incarnation()) {
            return candidate.incarnation() < current.incarnation();
        }
        return candidate.sequence() <= current.sequence();
    }

    /** Removes {@code node} at once, e.g. because the membership view dropped it. */
    public void remove(NodeId node, String reason) {
        synchronized (lock) {
            if (entries.remove(node) != null) {
                departures.incrementAndGet();
                logger.info("{}: {} left the yellow page ({})", self, node, reason);
                rebuild();
            }
        }
    }

    /**
     * {@link #expire()} as the periodic expiry task calls it, every {@code period}: when the previous
     * call was far longer ago than that (more than half the expiry time, or ten periods), this process
     * was paused (SIGSTOP, a long GC, a frozen VM) or starved, and heard nothing because it ran nothing.
     * Its peers' silence then proves nothing: instead of expiring, every entry gets a fresh expiry from
     * now, and those that stay silent through it go then. Expiring them at once made a secondary that
     * woke up alone in its yellow page elect itself against a primary that had never stopped.
     */
    public int expire(Duration period) {
        long now = nanoTime.getAsLong();
        synchronized (lock) {
            long gap = lastCheckNanos == NEVER_CHECKED ? 0 : now - lastCheckNanos;
            lastCheckNanos = now;
            if (gap > Math.max(expiryNanos / 2, 10 * period.toNanos())) {
                entries.replaceAll((node, entry) -> new Entry(entry.announcement(), Math.max(entry.heardNanos(), now),
                        entry.failures(), entry.excluded()));
                logger.warn("{}: nothing ran for {} ms (this process was paused or starved); giving every node of the"
                        + " yellow page a fresh {} ms before it expires", self, gap / 1_000_000, expiryNanos / 1_000_000);
                return 0;
            }
        }
        return expire();
    }

    /** Removes every entry unheard for longer than the expiry time; returns how many. */
    public int expire() {
        long now = nanoTime.getAsLong();
        synchronized (lock) {
            List<NodeId> expired = new ArrayList<>();
            entries.forEach((node, entry) -> {
                if (now - entry.heardNanos() > expiryNanos) {
                    expired.add(node);
                }
            });
            for (NodeId node : expired) {
                entries.remove(node);
                expiries.incrementAndGet();
                logger.info("{}: {} left the yellow page (unheard for {} ms)", self, node, expiryNanos / 1_000_000);
            }
            if (!expired.isEmpty()) {
                rebuild();
            }
            return expired.size();
        }
    }

    /** Counts a failed connection attempt to {@code node}; the third in a row excludes it. */
    public void connectFailed(NodeId node) {
        synchronized (lock) {
            Entry entry = entries.get(node);
            if (entry == null || entry.excluded()) {
                return;
            }
            int failures = entry.failures() + 1;
            boolean excluded = failures >= MAX_CONNECT_FAILURES;
            entries.put(node, new Entry(entry.announcement(), entry.heardNanos(), failures, excluded));
            if (excluded) {
                logger.info("{}: excluded {} after {} failed connection attempts", self, node, failures);
                rebuild();
            }
        }
    }

    /** Resets the failure count of {@code node} after a successful connection. */
    public void connectSucceeded(NodeId node) {
        synchronized (lock) {
            Entry entry = entries.get(node);
            if (entry != null && entry.failures() > 0 && !entry.excluded()) {
                entries.put(node, new Entry(entry.announcement(), entry.heardNanos(), 0, false));
            }
        }
    }

    /** The live, non-excluded replicas of {@code service#partition}; empty if none is known. */
    public List<Replica> replicas(String service, int partition) {
        ServiceView view = snapshot.services().get(service);
        if (view == null || partition < 0 || partition >= view.byPartition().size()) {
            return List.of();
        }
        return view.byPartition().get(partition);
    }

    /** The partition count of {@code service}, if any node announces it. */
    public OptionalInt partitions(String service) {
        ServiceView view = snapshot.services().get(service);
        return view == null ? OptionalInt.empty() : OptionalInt.of(view.byPartition().size());
    }

    /** The latest announcement of every node in the page, excluded nodes included. */
    public Collection<Announcement> announcements() {
        return snapshot.announcements();
    }

    /** The latest announcement of {@code node}. */
    public Optional<Announcement> announcement(NodeId node) {
        return snapshot.announcements().stream().filter(a -> a.node().equals(node.value())).findFirst();
    }

    /**
     * When the latest announcement of {@code node} arrived, on the {@code nanoTime} clock: with two
     * announcements' {@link Announcement#served()}, the node's request rate.
     */
    public OptionalLong heardNanos(NodeId node) {
        synchronized (lock) {
            Entry entry = entries.get(node);
            return entry == null ? OptionalLong.empty() : OptionalLong.of(entry.heardNanos());
        }
    }

    /** How many entries left the page because they went unheard for the expiry time, since it was created. */
    public long expiries() {
        return expiries.get();
    }

    /** How many entries left the page because the membership view dropped their node, since it was created. */
    public long departures() {
        return departures.get();
    }

    /** Whether {@code node} is in the page and not excluded. */
    public boolean contains(NodeId node) {
        return snapshot.live().contains(node);
    }

    // @GuardedBy("lock")
    private void rebuild() {
        publish(build());
    }

    // @GuardedBy("lock")
    private void publish(Snapshot next) {
        snapshot = next;
        for (Runnable listener : listeners) {
            listener.run();
        }
    }

    // @GuardedBy("lock")
    private Snapshot build() {
        Map<String, List<List<Replica>>> byService = new HashMap<>();
        Map<String, Announcement.HostedService> serviceInfo = new HashMap<>();
        List<Announcement> all = new ArrayList<>();
        List<NodeId> live = new ArrayList<>();
        for (Map.Entry<NodeId, Entry> e : entries.entrySet()) {
            Announcement a = e.getValue().announcement();
            all.add(a);
            if (e.getValue().excluded()) {
                continue;
            }
            live.add(e.getKey());
            InetSocketAddress request = new InetSocketAddress(a.host(), a.tcpPort());
            InetSocketAddress poll = new InetSocketAddress(a.host(), a.udpPort());
            for (Announcement.HostedService s : a.services()) {
                List<List<Replica>> partitions = byService.computeIfAbsent(s.name(), n -> newPartitionList(s.partitions()));
                serviceInfo.putIfAbsent(s.name(), s);
                if (partitions.size() != s.partitions()) {
                    logger.warn("{}: {} announces {} with {} partitions, others with {}; ignoring it", self, e.getKey(),
                            s.name(), s.partitions(), partitions.size());
                    continue;
                }
                for (Announcement.ReplicaState r : s.replicas()) {
                    if (r.partition() >= 0 && r.partition() < partitions.size()) {
                        partitions.get(r.partition()).add(new Replica(e.getKey(), request, poll, r.priority(), r.role(),
                                r.version(), s.load(), r.epoch(), r.logEnd(), r.lastEpoch(), r.boundVersion(),
                                a.draining()));
                    }
                }
            }
        }
        Map<String, ServiceView> services = new HashMap<>();
        byService.forEach((name, partitions) -> {
            Announcement.HostedService info = requireNonNull(serviceInfo.get(name), "serviceInfo: put with byService");
            services.put(name, new ServiceView(partitions.stream().map(List::copyOf).toList(), info.consistency(),
                    info.stalenessMillis()));
        });
        return new Snapshot(Map.copyOf(services), List.copyOf(all), List.copyOf(live));
    }

    /** Runs {@code listener} after every change; it runs under the writers' lock and must not block. */
    public void addListener(Runnable listener) {
        listeners.add(requireNonNull(listener, "listener"));
    }

    private static List<List<Replica>> newPartitionList(int partitions) {
        List<List<Replica>> list = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            list.add(new ArrayList<>(4));
        }
        return list;
    }

    private record ServiceView(List<List<Replica>> byPartition, ConsistencyLevel consistency, long stalenessMillis) {}

    /** The consistency level of {@code service}, if any node announces it. */
    public Optional<ConsistencyLevel> consistency(String service) {
        ServiceView view = snapshot.services().get(service);
        return view == null ? Optional.empty() : Optional.of(view.consistency());
    }

    private record Snapshot(Map<String, ServiceView> services, List<Announcement> announcements, List<NodeId> live) {
        static final Snapshot EMPTY = new Snapshot(Map.of(), List.of(), List.of());
    }

    /** Returns {@code null}-safe description for logs. */
    @Override
    public String toString() {
        @Nullable Snapshot s = snapshot;
        return "YellowPage[" + self + ", nodes=" + s.live() + "]";
    }
}
