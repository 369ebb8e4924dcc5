package io.neptune.benchmarks.nemesis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpFunction;
import io.neptune.benchmarks.nemesis.history.OpType;
import io.neptune.benchmarks.nemesis.history.Operation;
import io.neptune.benchmarks.nemesis.history.RunFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * How long each fault stopped writes, read from a run's history. For each partition, the clock
 * starts at the fault's start if an append to the partition was in flight then, else at the first
 * append invoked on it after the start (a partition nobody wrote to was not waiting); it stops at
 * the first acknowledged append invoked at or after that moment. The slowest partition decides. A
 * partition whose writes never resumed before the history ends makes the fault's time unknown.
 * Faults that overlap the recovery of an earlier one are measured as they come; the number is what
 * a client saw, fail-over, deadlines and retries included.
 *
 * <p>{@code java ... WriteRecovery DIR...} re-measures saved runs ({@code history.jsonl} and the
 * faults in {@code final-state.json}) and prints the table of {@link #table}.
 *
 * <p>Thread-safety: stateless.
 */
final class WriteRecovery {
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

    /** An append: invoked, completed (or never: {@code Long.MAX_VALUE}), acknowledged or not. */
    private record Append(long invoked, long completed, boolean ok) {}

    private WriteRecovery() {}

    /** The gap of each fault in {@code faults}, in their order. */
    static List<Gap> of(History history, List<Nemesis.Applied> faults) {
        Map<Integer, List<Append>> byPartition = new HashMap<>();
        for (Operation op : history.operations()) {
            if (op.invocation().f() != OpFunction.APPEND) {
                continue;
            }
            Op done = op.completion();
            byPartition.computeIfAbsent(op.invocation().partition(), p -> new ArrayList<>()).add(new Append(
                    op.invocation().time(), done == null ? Long.MAX_VALUE : done.time(),
                    done != null && done.type() == OpType.OK));
        }
        List<Gap> gaps = new ArrayList<>(faults.size());
        for (Nemesis.Applied fault : faults) {
            long start = fault.start();
            long slowest = 0;
            boolean resumed = true;
            for (List<Append> appends : byPartition.values()) {
                boolean inFlight = appends.stream().anyMatch(a -> a.invoked() < start && a.completed() > start);
                OptionalLong from = inFlight ? OptionalLong.of(start)
                        : appends.stream().mapToLong(Append::invoked).filter(t -> t >= start).min();
                if (from.isEmpty()) {
                    continue; // nobody wrote to this partition after the fault
                }
                long clock = from.getAsLong();
                OptionalLong flowing = appends.stream().filter(a -> a.ok() && a.invoked() >= clock)
                        .mapToLong(Append::completed).min();
                if (flowing.isEmpty()) {
                    resumed = false;
                } else {
                    slowest = Math.max(slowest, flowing.getAsLong() - clock);
                }
            }
            gaps.add(new Gap(fault.kind(), start, resumed ? OptionalLong.of(slowest) : OptionalLong.empty()));
        }
        return gaps;
    }

    /** Prints the table for the saved runs in {@code args} (directories), and each fault's gap. */
    public static void main(String[] args) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Gap> all = new ArrayList<>();
        for (String arg : args) {
            Path dir = Path.of(arg);
            List<Nemesis.Applied> faults = new ArrayList<>();
            for (JsonNode f : json.readTree(dir.resolve(RunFiles.FINAL_STATE).toFile()).path("faults")) {
                List<String> target = new ArrayList<>();
                f.path("target").forEach(t -> target.add(t.asText()));
                faults.add(new Nemesis.Applied(f.path("kind").asText(), target, f.path("start").asLong(),
                        f.path("end").asLong(), f.path("detail").asText()));
            }
            List<Gap> gaps = of(RunFiles.readHistory(dir.resolve(RunFiles.HISTORY)), faults);
            System.out.println(dir.getFileName() + ": " + gaps);
            all.addAll(gaps);
        }
        table(all).forEach(System.out::println);
    }

    /**
     * Per fault kind: faults measured, median and max gap in seconds, and how many did not resume, as
     * Markdown table rows.
     */
    static List<String> table(List<Gap> gaps) {
        Map<String, List<Gap>> byKind = new TreeMap<>();
        gaps.forEach(g -> byKind.computeIfAbsent(g.kind(), k -> new ArrayList<>()).add(g));
        List<String> rows = new ArrayList<>();
        rows.add("| fault | faults | median | max | not resumed before the run ended |");
        rows.add("| --- | --- | --- | --- | --- |");
        byKind.forEach((kind, list) -> {
            long[] times = list.stream().filter(g -> g.nanos().isPresent()).mapToLong(g -> g.nanos().getAsLong())
                    .sorted().toArray();
            rows.add(String.format(Locale.ROOT, "| %s | %d | %s | %s | %d |", kind, list.size(),
                    times.length == 0 ? "-" : String.format(Locale.ROOT, "%.2f s", times[(times.length - 1) / 2] / 1e9),
                    times.length == 0 ? "-" : String.format(Locale.ROOT, "%.2f s", times[times.length - 1] / 1e9),
                    list.size() - times.length));
        });
        return rows;
    }
}
