package io.neptune.benchmarks.nemesis.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What the cluster held after the nemesis healed every fault and the replicas caught up: the state
 * of every replica, and each key's list read from each replica directly (not through the client's
 * replica choice). Written to {@code final-state.json} next to the history. Immutable.
 *
 * @param replicas one entry per replica of every partition that answered
 * @param reads one entry per (replica, key) the harness read; empty if it read none
 */
public record FinalState(List<ReplicaState> replicas, List<FinalRead> reads) {
    public FinalState {
        replicas = List.copyOf(replicas);
        reads = List.copyOf(reads);
    }

    /** A final state with nothing in it: the checkers that need one answer UNKNOWN. */
    public static FinalState empty() {
        return new FinalState(List.of(), List.of());
    }

    /**
     * One replica of a partition as it answered after healing ({@code ClusterAdmin.replicas}).
     *
     * @param node the hosting node
     * @param service the service name
     * @param partition the partition index
     * @param version the last LSN applied (the version reads see)
     * @param digest the service's digest of the partition; empty without a {@code @Digest} method
     */
    public record ReplicaState(String node, String service, int partition, long version, String digest) {
        public ReplicaState {
            requireNonNull(node, "node");
            requireNonNull(service, "service");
            requireNonNull(digest, "digest");
        }

        /**
         * The hash of the rows in {@code digest} ({@code appliedLsn:hash}, {@code PartitionDatabase.digest}),
         * without the applied LSN: at level 1 that LSN is a position in the replica's own log, which holds a
         * write retried at another node twice (run once, logged once as a repeat), so the LSN the service
         * stored stays below the log's end where a repeat came last, while the rows are the same.
         */
        public static String rows(String digest) {
            return digest.substring(digest.indexOf(':') + 1);
        }
    }

    /**
     * The list of one key as one replica held it after healing.
     *
     * @param node the replica's node
     * @param key the key
     * @param partition the key's partition
     * @param values the list, in order; {@code "value"} in the file, like a read's list in the history
     */
    public record FinalRead(String node, String key, int partition,
            @JsonProperty("value") @JsonAlias("values") List<Long> values) {
        public FinalRead {
            requireNonNull(node, "node");
            requireNonNull(key, "key");
            values = List.copyOf(values);
        }

        @Override
        public String toString() {
            return "final read of " + key + " at " + node + ": " + Op.abbreviate(values);
        }
    }
}
