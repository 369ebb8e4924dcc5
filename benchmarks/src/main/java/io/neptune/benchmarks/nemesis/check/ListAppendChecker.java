package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Observations.Read;
import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * List-append order, for services that order writes (levels 2 and 3). Three properties, each
 * polynomial:
 * <ol>
 *   <li><b>Prefix order</b>: every read of a key (history reads and final reads) is a prefix of the
 *       key's reference list: its longest final read, else its longest read. Without final reads
 *       this is exactly "every two reads are prefix-comparable" (else two histories of the key
 *       diverged); with them it also requires the healed cluster to extend everything a client read
 *       (an element read and then gone is an anomaly even if its append was never acknowledged).
 *       O(elements read).
 *   <li><b>Write order</b>: in the reference list an element never precedes one whose append
 *       completed before its own append was invoked (writes take effect in real-time order).
 *       O(elements) with a suffix minimum.
 *   <li><b>Real-time reads</b>, only if {@link Guarantees#linearizableReads()}: a read invoked after
 *       another read of the key completed is at least as long. O(reads log reads) by a sweep.
 * </ol>
 * Session order (a session's later read extends its earlier ones) is {@link SessionChecker}'s.
 */
public final class ListAppendChecker {
    /** The checker's name in reports. */
    public static final String NAME = "list-append";

    private ListAppendChecker() {}

    /** Checks the reads of {@code history} and {@code state} against what {@code guarantees} promise. */
    public static Verdict check(History history, FinalState state, Guarantees guarantees) {
        Map<String, Map<Long, Operation>> appends = Observations.appendsByKey(history);
        Map<String, List<Read>> historyReads = Observations.byKey(Observations.okReads(history));
        Map<String, List<Read>> reads = Observations.byKey(Observations.allReads(history, state));
        List<Anomaly> anomalies = new ArrayList<>();
        long incomparable = 0;
        long misordered = 0;
        long stale = 0;
        for (Map.Entry<String, List<Read>> e : reads.entrySet()) {
            Read reference = reference(e.getValue());
            incomparable += prefixOrder(reference, e.getValue(), anomalies);
            misordered += writeOrder(reference, appends.getOrDefault(e.getKey(), Map.of()), anomalies);
            if (guarantees.linearizableReads()) {
                stale += realTimeReads(historyReads.getOrDefault(e.getKey(), List.of()), anomalies);
            }
        }
        Map<String, Long> measures = new LinkedHashMap<>();
        measures.put("keys", (long) reads.size());
        measures.put("incomparableReads", incomparable);
        measures.put("misorderedWrites", misordered);
        measures.put("staleReads", stale);
        return Verdict.of(NAME, anomalies, reads.isEmpty(), reads.size() + " keys read: " + incomparable
                + " reads not a prefix of their key's final (else longest) list, " + misordered
                + " elements out of real-time order"
                + (guarantees.linearizableReads() ? ", " + stale + " reads shorter than a read that completed before"
                + " them" : ""), measures);
    }

    /** The longest final read of the key, else its longest read; the latest of equally long ones. */
    private static Read reference(List<Read> reads) {
        Comparator<Read> order = Comparator.comparing(Read::isFinal).thenComparingInt(r -> r.values().size());
        return reads.stream().reduce((a, b) -> order.compare(b, a) >= 0 ? b : a).orElseThrow();
    }

    private static long prefixOrder(Read reference, List<Read> reads, List<Anomaly> anomalies) {
        long found = 0;
        for (Read read : reads) {
            if (!Observations.isPrefix(read.values(), reference.values())) {
                anomalies.add(notPrefix(read, reference));
                found++;
            }
        }
        return found;
    }

    private static Anomaly notPrefix(Read read, Read reference) {
        int i = Observations.firstDifference(read.values(), reference.values());
        List<Op> ops = new ArrayList<>(read.ops());
        ops.addAll(reference.ops());
        String why = i >= 0 ? "they differ at position " + i + " (" + read.values().get(i) + " vs "
                + reference.values().get(i) + ")" : "it holds " + (read.values().size() - reference.values().size())
                + " more elements, from " + read.values().get(reference.values().size());
        return new Anomaly(read + " is not a prefix of " + reference + ": " + why, ops);
    }

    private static long writeOrder(Read reference, Map<Long, Operation> appends, List<Anomaly> anomalies) {
        List<Operation> order = new ArrayList<>();
        for (Long element : reference.values()) {
            Operation append = appends.get(element);
            if (append != null) {
                order.add(append);
            }
        }
        long found = 0;
        Operation earliestLater = null;  // the append completed first among those after position i
        for (int i = order.size() - 1; i >= 0; i--) {
            Operation append = order.get(i);
            if (earliestLater != null && earliestLater.completeTime() < append.invokeTime()) {
                found++;
                List<Op> ops = new ArrayList<>(append.ops());
                ops.addAll(earliestLater.ops());
                anomalies.add(new Anomaly("in " + reference + ", " + append.element() + " precedes "
                        + earliestLater.element() + " although the append of " + earliestLater.element()
                        + " completed before the append of " + append.element() + " was invoked", ops));
            }
            if (earliestLater == null || append.completeTime() < earliestLater.completeTime()) {
                earliestLater = append;
            }
        }
        return found;
    }

    private static long realTimeReads(List<Read> reads, List<Anomaly> anomalies) {
        List<Read> byCompletion = new ArrayList<>(reads);
        byCompletion.sort(Comparator.comparingLong(r -> r.historyOperation().completeTime()));
        List<Read> byInvocation = new ArrayList<>(reads);
        byInvocation.sort(Comparator.comparingLong(r -> r.historyOperation().invokeTime()));
        long found = 0;
        int completed = 0;
        Read longest = null;  // the longest read completed before the current one was invoked
        for (Read read : byInvocation) {
            while (completed < byCompletion.size()
                    && byCompletion.get(completed).historyOperation().completeTime()
                            < read.historyOperation().invokeTime()) {
                Read done = byCompletion.get(completed++);
                if (longest == null || done.values().size() > longest.values().size()) {
                    longest = done;
                }
            }
            if (longest != null && read.values().size() < longest.values().size()) {
                found++;
                List<Op> ops = new ArrayList<>(read.ops());
                ops.addAll(longest.ops());
                anomalies.add(new Anomaly(read + " was invoked after " + longest + " completed, yet is shorter",
                        ops));
            }
        }
        return found;
    }
}
