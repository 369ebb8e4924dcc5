package io.neptune.benchmarks.nemesis;

import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpFunction;
import io.neptune.benchmarks.nemesis.history.OpType;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * How long each fault stopped writes, read from a run's history: from the fault's start until every
 * partition that was taking writes just before it has completed a write invoked after that start
 * (the slowest partition decides). A partition whose writes never resumed before the history ends
 * makes the fault's time unknown. Faults that overlap the recovery of an earlier one are measured
 * as they come; the number is what a client saw, fail-over and retries included.
 *
 * <p>Thread-safety: stateless.
 */
final class WriteRecovery {
    /** A partition counts as taking writes when one completed within this long before the fault. */
    static final long ACTIVE_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(3);

    /**
     * One fault's write gap.
     *
     * @param kind the fault's kind label
     * @param startNanos when it started, since the workload's origin
     * @param nanos the time until writes flowed on every partition again; empty if they did not before the end
     */
    record Gap(String kind, long startNanos, OptionalLong nanos) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s at %.1f s: %s", kind, startNanos / 1e9,
                    nanos.isPresent() ? String.format(Locale.ROOT, "%.2f s", nanos.getAsLong() / 1e9) : "not resumed");
        }
    }

    private WriteRecovery() {}

    /** The gap of each fault in {@code faults}, in their order. */
    static List<Gap> of(History history, List<Nemesis.Applied> faults) {
        Map<Integer, List<long[]>> okAppends = new HashMap<>(); // partition -> {invoked, completed}, by completion
        for (Operation op : history.operations()) {
            Op done = op.completion();
            if (done != null && done.f() == OpFunction.APPEND && done.type() == OpType.OK) {
                okAppends.computeIfAbsent(done.partition(), p -> new ArrayList<>())
                        .add(new long[] {op.invocation().time(), done.time()});
            }
        }
        okAppends.values().forEach(list -> list.sort((a, b) -> Long.compare(a[1], b[1])));
        List<Gap> gaps = new ArrayList<>(faults.size());
        for (Nemesis.Applied fault : faults) {
            long start = fault.start();
            long slowest = 0;
            boolean resumed = true;
            for (List<long[]> appends : okAppends.values()) {
                boolean active = appends.stream().anyMatch(a -> a[1] < start && a[1] >= start - ACTIVE_WINDOW_NANOS);
                if (!active) {
                    continue;
                }
                OptionalLong next = appends.stream().filter(a -> a[0] >= start).mapToLong(a -> a[1]).min();
                if (next.isEmpty()) {
                    resumed = false;
                } else {
                    slowest = Math.max(slowest, next.getAsLong() - start);
                }
            }
            gaps.add(new Gap(fault.kind(), start, resumed ? OptionalLong.of(slowest) : OptionalLong.empty()));
        }
        return gaps;
    }

    /** The family a fault kind belongs to: partition, pause, kill or crash. */
    static String family(String kind) {
        return kind.startsWith("partition") ? "partition" : kind.startsWith("pause") ? "pause"
                : kind.startsWith("kill") ? "kill" : kind;
    }

    /**
     * Per family: faults measured, median and max gap in seconds, and how many did not resume, as
     * Markdown table rows.
     */
    static List<String> table(List<Gap> gaps) {
        Map<String, List<Gap>> byFamily = new TreeMap<>();
        gaps.forEach(g -> byFamily.computeIfAbsent(family(g.kind()), k -> new ArrayList<>()).add(g));
        List<String> rows = new ArrayList<>();
        rows.add("| fault | faults | median | max | not resumed before the run ended |");
        rows.add("| --- | --- | --- | --- | --- |");
        byFamily.forEach((family, list) -> {
            long[] times = list.stream().filter(g -> g.nanos().isPresent()).mapToLong(g -> g.nanos().getAsLong())
                    .sorted().toArray();
            rows.add(String.format(Locale.ROOT, "| %s | %d | %s | %s | %d |", family, list.size(),
                    times.length == 0 ? "-" : String.format(Locale.ROOT, "%.2f s", times[times.length / 2] / 1e9),
                    times.length == 0 ? "-" : String.format(Locale.ROOT, "%.2f s", times[times.length - 1] / 1e9),
                    list.size() - times.length));
        });
        return rows;
    }
}
