package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpType;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Phantom and aborted reads: no read (of the history or final) contains an element that was never
 * appended to its key, or whose append definitely FAILED, and no read of the history contains an
 * element whose append was invoked only after the read completed. One anomaly per (key, element),
 * with the first read that shows it. O(total elements read).
 */
public final class PhantomReadsChecker {
    /** The checker's name in reports. */
    public static final String NAME = "phantom-reads";

    private PhantomReadsChecker() {}

    /** Checks every OK read of {@code history} and every final read of {@code state}. */
    public static Verdict check(History history, FinalState state) {
        Map<String, Map<Long, Operation>> appends = Observations.appendsByKey(history);
        Set<String> reported = new HashSet<>();
        List<Anomaly> anomalies = new ArrayList<>();
        long phantoms = 0;
        long aborted = 0;
        long future = 0;
        List<Observations.Read> reads = Observations.allReads(history, state);
        for (Observations.Read read : reads) {
            Map<Long, Operation> keyAppends = appends.getOrDefault(read.key(), Map.of());
            for (Long element : read.values()) {
                Operation append = keyAppends.get(element);
                String problem;
                if (append == null) {
                    problem = "was never appended to " + read.key();
                    phantoms++;
                } else if (append.outcome() == OpType.FAIL) {
                    problem = "was appended by an append that failed";
                    aborted++;
                } else if (read.operation() != null && append.invokeTime() > read.operation().completeTime()) {
                    problem = "was appended by an append invoked after the read completed";
                    future++;
                } else {
                    continue;
                }
                if (reported.add(read.key() + "\n" + element)) {
                    List<Op> ops = new ArrayList<>(read.ops());
                    if (append != null) {
                        ops.addAll(append.ops());
                    }
                    anomalies.add(new Anomaly(element + " in " + read + " " + problem, ops));
                }
            }
        }
        Map<String, Long> measures = new LinkedHashMap<>();
        measures.put("reads", (long) reads.size());
        measures.put("anomalies", (long) anomalies.size());
        return Verdict.of(NAME, anomalies, reads.isEmpty(), reads.size() + " reads (final ones included); elements"
                + " read but never appended: " + phantoms + ", appended by a failed append: " + aborted
                + ", appended after the read: " + future + " (counted per read)", measures);
    }
}
