package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpFunction;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Level 3's staleness bound. A read invoked at time t reflects every append acknowledged before
 * t − x − slack ({@link Guarantees#stalenessMillis()}, {@link Guarantees#slackMillis()}).
 *
 * <p>The staleness of a read is t minus the acknowledgement time of the earliest-acknowledged
 * append (of its key, acknowledged before t) that it misses; 0 if it misses none. It is measured
 * from the read's <em>invocation</em>, the earliest moment a replica can have served it, so a slow
 * response (a paused client, a long queue) is never mistaken for a stale replica. The worst staleness
 * is reported as a measure even when within the bound. O(appends log appends + elements read).
 */
public final class StalenessChecker {
    /** The checker's name in reports. */
    public static final String NAME = "staleness";

    private StalenessChecker() {}

    /** Checks every OK read of {@code history} against the bound of {@code guarantees}. */
    public static Verdict check(History history, Guarantees guarantees) {
        Map<String, List<Operation>> acknowledged = new HashMap<>();
        List<Operation> reads = new ArrayList<>();
        for (Operation op : history.operations()) {
            if (op.isOk() && op.f() == OpFunction.APPEND) {
                acknowledged.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            } else if (op.isOk()) {
                reads.add(op);
            }
        }
        acknowledged.values().forEach(l -> l.sort(Comparator.comparingLong(Operation::completeTime)));
        long boundNanos = (guarantees.stalenessMillis() + guarantees.slackMillis()) * 1_000_000;
        long worst = 0;
        Operation worstRead = null;
        List<Anomaly> anomalies = new ArrayList<>();
        for (Operation read : reads) {
            Operation missed = earliestMissed(read, acknowledged.getOrDefault(read.key(), List.of()));
            long staleness = missed == null ? 0 : read.invokeTime() - missed.completeTime();
            if (staleness > worst) {
                worst = staleness;
                worstRead = read;
            }
            if (staleness > boundNanos) {
                List<Op> ops = new ArrayList<>(read.ops());
                ops.addAll(missed.ops());
                anomalies.add(new Anomaly("read #" + read.index() + " of " + read.key() + " misses "
                        + missed.element() + ", acknowledged " + Observations.millis(staleness)
                        + " ms before the read was invoked (bound: " + Observations.millis(boundNanos) + " ms)", ops));
            }
        }
        Map<String, Long> measures = new LinkedHashMap<>();
        measures.put("readsChecked", (long) reads.size());
        measures.put("worstStalenessMillis", Observations.millis(worst));
        measures.put("boundMillis", Observations.millis(boundNanos));
        measures.put("beyondBound", (long) anomalies.size());
        return Verdict.of(NAME, anomalies, false, reads.size() + " reads, worst staleness "
                + Observations.millis(worst) + " ms" + (worstRead == null ? "" : " (read #" + worstRead.index() + ")")
                + ", bound " + guarantees.stalenessMillis() + " ms + " + guarantees.slackMillis() + " ms slack; "
                + anomalies.size() + " reads beyond it", measures);
    }

    /** The first of {@code acknowledged} (sorted by ack time) acked before {@code read} was invoked and missing from it. */
    private static @Nullable Operation earliestMissed(Operation read, List<Operation> acknowledged) {
        Set<Long> values = null;
        for (Operation append : acknowledged) {
            if (append.completeTime() >= read.invokeTime()) {
                return null;
            }
            if (values == null) {
                values = new HashSet<>(read.list());
            }
            if (!values.contains(append.element())) {
                return append;
            }
        }
        return null;
    }
}
