package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes applied twice: no element appears twice in any read of a key, neither in a read of the
 * history nor in a final read. Elements are unique per key, so a repeat means the append ran twice
 * (a retry that was not recognised, a record replayed twice). One anomaly per (key, element), with
 * the first read that shows it and the append. O(total elements read).
 */
public final class DuplicatesChecker {
    /** The checker's name in reports. */
    public static final String NAME = "duplicates";

    private DuplicatesChecker() {}

    /** Checks every OK read of {@code history} and every final read of {@code state}. */
    public static Verdict check(History history, FinalState state) {
        Map<String, Map<Long, Operation>> appends = Observations.appendsByKey(history);
        Set<String> reported = new HashSet<>();
        List<Anomaly> anomalies = new ArrayList<>();
        long readsWithDuplicates = 0;
        List<Observations.Read> reads = Observations.allReads(history, state);
        for (Observations.Read read : reads) {
            Set<Long> seen = new HashSet<>();
            Set<Long> repeated = new LinkedHashSet<>();
            for (Long element : read.values()) {
                if (!seen.add(element)) {
                    repeated.add(element);
                }
            }
            for (Long element : repeated) {
                if (reported.add(read.key() + "\n" + element)) {
                    List<Op> ops = new ArrayList<>(read.ops());
                    Operation append = appends.getOrDefault(read.key(), Map.of()).get(element);
                    if (append != null) {
                        ops.addAll(append.ops());
                    }
                    long times = read.values().stream().filter(element::equals).count();
                    anomalies.add(new Anomaly(element + " appears " + times + " times in " + read, ops));
                }
            }
            readsWithDuplicates += repeated.isEmpty() ? 0 : 1;
        }
        Map<String, Long> measures = new LinkedHashMap<>();
        measures.put("reads", (long) reads.size());
        measures.put("duplicated", (long) anomalies.size());
        measures.put("readsWithDuplicates", readsWithDuplicates);
        return Verdict.of(NAME, anomalies, reads.isEmpty(), reads.size() + " reads (final ones included), "
                + anomalies.size() + " elements duplicated, in " + readsWithDuplicates + " reads", measures);
    }
}
