package io.neptune.benchmarks;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The service {@link IdleExperiment} hosts: a level-2 counter of writes per partition, as little
 * state and work as a replicated service can have, so that what a node costs while idle is the
 * framework's (replicas, logs, heartbeats, announcements) and not the service's. It declares
 * {@link #PARTITIONS} partitions; the experiment hosts the first {@code N} of them.
 *
 * <p>Thread-safety: thread-safe; Neptune applies one partition's writes in LSN order.
 */
@NeptuneService(name = IdleService.NAME, partitions = IdleService.PARTITIONS, consistency = ConsistencyLevel.LEVEL_2)
public final class IdleService {
    /** The service name. */
    public static final String NAME = "idle";
    /** Partitions the service declares: room for the largest count the experiment hosts (500). */
    public static final int PARTITIONS = 512;
    /** The name of {@link #touch}. */
    static final String TOUCH = "touch";

    private final AtomicLongArray writes = new AtomicLongArray(PARTITIONS);
    private final AtomicLongArray applied = new AtomicLongArray(PARTITIONS);

    /** A write that only counts itself. */
    public record Touch() {}

    /** A request for a partition's count. */
    public record Ask() {}

    /**
     * A partition's count of applied writes.
     *
     * @param writes writes this replica applied to the partition since it started
     */
    public record Count(long writes) {}

    /** Counts the write and remembers its LSN (for {@link #check}). */
    @Write(name = TOUCH)
    public Count touch(RequestContext context, Touch touch) {
        applied.set(context.partition(), context.lsn());
        return new Count(writes.incrementAndGet(context.partition()));
    }

    /** The partition's count of writes. */
    @Read
    public Count count(RequestContext context, Ask ask) {
        return new Count(writes.get(context.partition()));
    }

    /** Whether write {@code lsn} of {@code partition} was applied (the counts are lost on restart, so none is then). */
    @Check
    public boolean check(int partition, long lsn) {
        return lsn <= applied.get(partition);
    }
}
