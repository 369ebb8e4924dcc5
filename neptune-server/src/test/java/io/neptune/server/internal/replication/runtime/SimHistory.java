package io.neptune.server.internal.replication.runtime;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What a simulation's clients and replicas did, checked as it happens: which write each LSN holds
 * (levels 2 and 3 number writes for the whole partition, so every replica must apply the same write
 * at an LSN), which writes were acknowledged and at which version, and which node was primary in
 * each epoch. The first broken rule is kept as the run's {@link #violation()}.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimHistory {
    private final boolean partitionLsns;
    private final Map<Long, String> writeAt = new HashMap<>();
    private final Map<String, Long> acknowledged = new LinkedHashMap<>();
    private final Map<Long, String> primaryOf = new TreeMap<>();
    private @Nullable String violation;

    /** {@code partitionLsns}: whether LSNs are the partition's (levels 2 and 3), not each replica's own (level 1). */
    SimHistory(boolean partitionLsns) {
        this.partitionLsns = partitionLsns;
    }

    /** Records the first broken rule. */
    void violation(String what) {
        if (violation == null) {
            violation = what;
        }
    }

    @Nullable String violation() {
        return violation;
    }

    /** {@code replica} applied write {@code id} at {@code lsn}. */
    void appliedAt(String replica, long lsn, String id) {
        if (!partitionLsns) {
            return;
        }
        String before = writeAt.putIfAbsent(lsn, id);
        if (before != null && !before.equals(id)) {
            violation(replica + " applied write " + id + " at LSN " + lsn + ", where another replica applied " + before);
        }
    }

    /** A client got OK for write {@code id} with {@code version}. */
    void acknowledged(String id, long version) {
        Long before = acknowledged.putIfAbsent(id, version);
        if (!partitionLsns) {
            return;
        }
        if (before != null && before != version) {
            violation("write " + id + " was acknowledged at version " + before + " and again at " + version);
        }
        String at = writeAt.get(version);
        if (!id.equals(at)) {
            violation("write " + id + " was acknowledged at version " + version + ", where the replicas applied " + at);
        }
    }

    /** {@code node} published itself primary in {@code epoch}. */
    void primary(long epoch, String node) {
        String before = primaryOf.putIfAbsent(epoch, node);
        if (before != null && !before.equals(node)) {
            violation("two primaries in epoch " + epoch + ": " + before + " and " + node);
        }
    }

    Set<String> acknowledged() {
        return acknowledged.keySet();
    }

    int epochsWithPrimary() {
        return primaryOf.size();
    }
}
