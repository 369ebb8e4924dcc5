package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpFunction;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        Map<String, Acks> acks = new HashMap<>();
        acknowledged.forEach((key, appends) -> acks.put(key, Acks.of(appends)));
        long boundNanos = (guarantees.stalenessMillis() + guarantees.slackMillis()) * 1_000_000;
        long worst = 0;
        Operation worstRead = null;
        List<Anomaly> anomalies = new ArrayList<>();
        for (Operation read : reads) {
            Acks keyAcks = acks.get(read.key());
            Operation missed = keyAcks == null ? null : keyAcks.earliestMissedBy(read);
            long staleness = missed == null ? 0 : read.invokeTime() - missed.completeTime();
            if (staleness > worst) {
                worst = staleness;
                worstRead = read;
            }
            if (missed != null && staleness > boundNanos) {
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

    /**
     * The acknowledged appends of one key.
     *
     * @param inOrder sorted by acknowledgement time
     * @param rank each element's position in {@code inOrder}
     */
    private record Acks(List<Operation> inOrder, Map<Long, Integer> rank) {
        static Acks of(List<Operation> appends) {
            List<Operation> inOrder = new ArrayList<>(appends);
            inOrder.sort(Comparator.comparingLong(Operation::completeTime));
            Map<Long, Integer> rank = new HashMap<>();
            for (int i = 0; i < inOrder.size(); i++) {
                rank.put(inOrder.get(i).element(), i);
            }
            return new Acks(inOrder, rank);
        }

        /** The earliest-acknowledged append missing from {@code read}, if acknowledged before it was invoked. */
        @Nullable Operation earliestMissedBy(Operation read) {
            BitSet held = new BitSet(inOrder.size());
            for (Long element : read.list()) {
                Integer position = rank.get(element);
                if (position != null) {
                    held.set(position);
                }
            }
            int first = held.nextClearBit(0);
            return first < inOrder.size() && inOrder.get(first).completeTime() < read.invokeTime()
                    ? inOrder.get(first) : null;
        }
    }
}
