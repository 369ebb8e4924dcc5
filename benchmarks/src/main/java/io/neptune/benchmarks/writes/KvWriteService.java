package io.neptune.benchmarks.writes;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The smallest level-2 service that stores what it is sent: an in-memory map per partition and the
 * LSN of the last write each partition applied (what {@link Check} answers from). The same work as
 * {@link KvStateMachine} does for Ratis, so the two differ only in the replication underneath.
 * Since the partition count is fixed by {@link NeptuneService}, each count is a tiny subclass.
 *
 * <p>Thread-safety: thread-safe; Neptune applies one partition's writes in LSN order.
 */
public abstract class KvWriteService {
    /** The name of a {@code put}. */
    static final String PUT = "put";

    private final List<Map<String, String>> maps = new ArrayList<>();
    private final AtomicLongArray applied;

    /** A key and the value to store under it. */
    public record Put(String key, String value) {}

    /** The LSN a {@link Put} was applied at. */
    public record Stored(long lsn) {}

    KvWriteService(int partitions) {
        for (int p = 0; p < partitions; p++) {
            maps.add(new ConcurrentHashMap<>());
        }
        applied = new AtomicLongArray(partitions);
    }

    /** Stores the value and remembers the write's LSN. */
    @Write(name = PUT)
    public Stored put(RequestContext context, Put request) {
        maps.get(context.partition()).put(request.key(), request.value());
        applied.set(context.partition(), context.lsn());
        return new Stored(context.lsn());
    }

    /** Whether write {@code lsn} of {@code partition} was applied (state is lost on restart, so none is then). */
    @Check
    public boolean check(int partition, long lsn) {
        return lsn <= applied.get(partition);
    }

    /** The service name. */
    final String name() {
        return getClass().getAnnotation(NeptuneService.class).name();
    }

    /** A new instance with {@code partitions} partitions (1 or 64). */
    static KvWriteService create(int partitions) {
        return switch (partitions) {
            case 1 -> new OnePartition();
            case 64 -> new SixtyFourPartitions();
            default -> throw new IllegalArgumentException("partitions: " + partitions + " (expected: 1 or 64)");
        };
    }

    /** One partition: every write goes through one log. */
    @NeptuneService(name = "bench-writes-1", partitions = 1, consistency = ConsistencyLevel.LEVEL_2)
    public static final class OnePartition extends KvWriteService {
        OnePartition() {
            super(1);
        }
    }

    /** 64 partitions, as the demo's services: 64 logs, primaries spread over the nodes. */
    @NeptuneService(name = "bench-writes-64", partitions = 64, consistency = ConsistencyLevel.LEVEL_2)
    public static final class SixtyFourPartitions extends KvWriteService {
        SixtyFourPartitions() {
            super(64);
        }
    }
}
