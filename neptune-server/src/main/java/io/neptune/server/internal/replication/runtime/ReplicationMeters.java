package io.neptune.server.internal.replication.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.server.internal.log.RedoLog;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The meters of one replicated partition (docs/OPERATIONS.md, Metrics): gauges that read the
 * replica's published state and its REDO log at scrape time, and the two hooks of {@link ReplicaCore}
 * that count role changes and time take-overs. Nothing here runs on the write path.
 */
final class ReplicationMeters {
    private ReplicationMeters() {}

    /** Registers the meters of {@code core}'s partition, whose state machine is {@code replica}. */
    static void bind(MeterRegistry registry, RedoLog log, ReplicaCore core, PartitionReplica replica) {
        Tags tags = Tags.of("service", core.service, "partition", Integer.toString(core.partition));
        Gauge.builder("neptune.replica.applied.lsn", replica, r -> r.state().applied()).tags(tags)
                .description("LSN of the last write applied to the service here (the version reads see)")
                .register(registry);
        Gauge.builder("neptune.replica.log.end.lsn", replica, r -> r.state().logEnd()).tags(tags)
                .description("LSN of the last write in the REDO log here").register(registry);
        Gauge.builder("neptune.replica.epoch", replica, r -> r.state().epoch()).tags(tags)
                .description("The replica's epoch: it grows by one or more with every election").register(registry);
        Gauge.builder("neptune.replica.primary", replica, r -> r.state().role() == ReplicaRole.PRIMARY ? 1 : 0)
                .tags(tags).description("1 while this replica is the partition's primary").register(registry);
        Gauge.builder("neptune.replica.serving", replica, r -> r.state().role() == ReplicaRole.RECOVERING ? 0 : 1)
                .tags(tags).description("1 while this replica serves (not RECOVERING)").register(registry);
        Gauge.builder("neptune.redo.log.size", log, RedoLog::sizeBytes).tags(tags).baseUnit("bytes")
                .description("Size of the partition's REDO log file").register(registry);
        FunctionTimer.builder("neptune.redo.fsync", log, RedoLog::forces, RedoLog::forceNanos, TimeUnit.NANOSECONDS)
                .tags(tags).description("Forces (fsync) of the partition's REDO log and the time they took")
                .register(registry);
    }

    /**
     * Registers how far {@code replica} lags behind its primary as the yellow page shows it: for levels
     * 2 and 3 only, since level-1 LSNs are each replica's own and comparing them means nothing.
     */
    static void bindLag(MeterRegistry registry, ReplicaCore core, PartitionReplica replica, YellowPage yellowPage) {
        Gauge.builder("neptune.replica.lag", replica, r -> lag(r, yellowPage, core))
                .tags("service", core.service, "partition", Integer.toString(core.partition)).baseUnit("lsns")
                .description("Writes the primary applied (as last announced) that this replica has not; 0 on the"
                        + " primary, NaN while no primary is known")
                .register(registry);
    }

    /**
     * Sets {@code setup}'s seams that count the replica's role changes and time its take-overs
     * ({@code neptune.replica.role.changes}, {@code neptune.replica.failover}).
     */
    static CoreSetup countRoleChanges(MeterRegistry registry, CoreSetup setup) {
        setup.roleChanged((from, to) -> Counter.builder("neptune.replica.role.changes")
                .tags("service", setup.service, "role", to.name().toLowerCase(Locale.ROOT))
                .description("Role changes of this node's replicas, by the role taken").register(registry).increment());
        Timer failover = Timer.builder("neptune.replica.failover").tag("service", setup.service)
                .description("From the last word of the previous primary to this replica leading (majority mode)")
                .serviceLevelObjectives(Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
                        Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10),
                        Duration.ofSeconds(30))
                .register(registry);
        return setup.tookOver(nanos -> failover.record(nanos, TimeUnit.NANOSECONDS));
    }

    /** LSNs behind the primary of the yellow page: 0 on the primary, NaN while none is known. */
    static double lag(PartitionReplica replica, YellowPage yellowPage, ReplicaCore core) {
        ReplicaState self = replica.state();
        if (self.role() == ReplicaRole.PRIMARY) {
            return 0;
        }
        Replica primary = null;
        for (Replica r : yellowPage.replicas(core.service, core.partition)) {
            if (r.role() == ReplicaRole.PRIMARY && !r.node().equals(core.self)
                    && (primary == null || r.epoch() > primary.epoch())) {
                primary = r;
            }
        }
        return primary == null ? Double.NaN : Math.max(0, primary.version() - self.applied());
    }
}
