package io.neptune.server.internal;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes this node's announcement every announce interval with ±50% jitter (so nodes do not
 * synchronize), and once at once on start. The node's own yellow page is updated directly too.
 *
 * <p>Thread-safety: runs on one scheduler thread.
 */
public final class AvailabilityPublisher implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(AvailabilityPublisher.class);

    private final NodeId node;
    private final InetSocketAddress requestAddress;
    private final InetSocketAddress pollAddress;
    private final int adminPort;
    /** Whether the request port accepts TLS, announced so that permissive clients use it. */
    private final boolean tls;
    private final Router router;
    private final ReplicationEngine replication;
    private final MembershipChannel channel;
    private final YellowPage yellowPage;
    private final long intervalNanos;
    private final ScheduledExecutorService scheduler;
    private final long incarnation = System.currentTimeMillis();
    private final AtomicLong sequence = new AtomicLong();
    private volatile boolean closed;

    /**
     * Creates the publisher; {@link #start()} sends the first announcement.
     *
     * @param adminPort the admin port to announce; 0 for none
     */
    public AvailabilityPublisher(NodeId node, InetSocketAddress requestAddress, InetSocketAddress pollAddress,
            int adminPort, Router router, ReplicationEngine replication, MembershipChannel channel, YellowPage yellowPage,
            Duration interval, ScheduledExecutorService scheduler, boolean tls) {
        this.replication = replication;
        this.tls = tls;
        this.node = node;
        this.requestAddress = requestAddress;
        this.pollAddress = pollAddress;
        this.adminPort = adminPort;
        this.router = router;
        this.channel = channel;
        this.yellowPage = yellowPage;
        this.intervalNanos = interval.toNanos();
        this.scheduler = scheduler;
    }

    /** Publishes now and schedules the next announcements. */
    public void start() {
        publish();
    }

    /** Publishes once more now, without changing the schedule; e.g. after a role change. */
    public void publishNow() {
        if (!closed) {
            scheduler.execute(this::send);
        }
    }

    /** Builds the current announcement. */
    public Announcement announcement() {
        List<Announcement.HostedService> services = new ArrayList<>();
        int total = 0;
        long served = 0;
        for (ServiceRuntime runtime : router.services().values()) {
            List<Announcement.ReplicaState> replicas = new ArrayList<>();
            for (int p = 0; p < runtime.descriptor().partitions(); p++) {
                if (runtime.partitions().hosts(p)) {
                    replicas.add(replication.announce(runtime.descriptor().name(), p, runtime.hosting().priorityOf(p)));
                }
            }
            int load = runtime.load();
            total += load;
            served += runtime.served();
            services.add(new Announcement.HostedService(runtime.descriptor().name(), runtime.descriptor().partitions(),
                    load, replicas, runtime.descriptor().consistency(), runtime.descriptor().stalenessMillis(),
                    runtime.classStats(), runtime.hosting().workers()));
        }
        return new Announcement(node.value(), requestAddress.getAddress().getHostAddress(), requestAddress.getPort(),
                pollAddress.getPort(), ProcessHandle.current().pid(), incarnation, sequence.incrementAndGet(), total,
                services, served, adminPort, replication.isDraining(), tls);
    }

    private void publish() {
        if (closed) {
            return;
        }
        send();
        long delay = (long) (intervalNanos * (0.5 + ThreadLocalRandom.current().nextDouble()));
        if (!closed) {
            scheduler.schedule(this::publish, delay, TimeUnit.NANOSECONDS);
        }
    }

    private void send() {
        if (closed) {
            return;
        }
        try {
            Announcement announcement = announcement();
            yellowPage.update(announcement);
            channel.publish(announcement);
        } catch (RuntimeException e) {
            logger.warn("{}: announcement failed: {}", node, e.toString());
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
