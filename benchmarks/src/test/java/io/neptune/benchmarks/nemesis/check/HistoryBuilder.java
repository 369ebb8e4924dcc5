package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.FinalState.FinalRead;
import io.neptune.benchmarks.nemesis.history.FinalState.ReplicaState;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Hand-made histories for checker tests: each operation is given with its invocation and completion
 * times in milliseconds; {@link #build()} orders the lines by time and numbers them. Keys live in
 * partition 0 unless {@link #partition} says otherwise.
 */
final class HistoryBuilder {
    private final Map<String, Integer> partitions = new HashMap<>();
    private final Map<Integer, String> sessions = new HashMap<>();
    private final List<Spec> specs = new ArrayList<>();

    /** Puts {@code key} in {@code partition}. */
    HistoryBuilder partition(String key, int partition) {
        partitions.put(key, partition);
        return this;
    }

    /** Names the session of {@code process}'s operations. */
    HistoryBuilder session(int process, String session) {
        sessions.put(process, session);
        return this;
    }

    /** An append of {@code element} to {@code key} by {@code process}, acknowledged OK. */
    HistoryBuilder appendOk(int process, String key, long element, long fromMs, long toMs) {
        return append(process, key, element, fromMs, OpType.OK, toMs, null);
    }

    /**
     * An append ending with {@code outcome} at {@code toMs}; {@code outcome} null for one that never
     * completed; {@code version} the response's version, if any.
     */
    HistoryBuilder append(int process, String key, long element, long fromMs, @Nullable OpType outcome, long toMs,
            @Nullable Long version) {
        specs.add(new Spec(process, key, element, null, fromMs, outcome, toMs, version));
        return this;
    }

    /** A read of {@code key} by {@code process} that returned {@code values}. */
    HistoryBuilder readOk(int process, String key, long fromMs, long toMs, Long... values) {
        return readOkAt(process, key, fromMs, toMs, null, values);
    }

    /** A read that returned {@code values} at {@code version}. */
    HistoryBuilder readOkAt(int process, String key, long fromMs, long toMs, @Nullable Long version,
            Long... values) {
        specs.add(new Spec(process, key, null, List.of(values), fromMs, OpType.OK, toMs, version));
        return this;
    }

    /** A read that ended with {@code outcome} (FAIL or INFO). */
    HistoryBuilder read(int process, String key, long fromMs, OpType outcome, long toMs) {
        specs.add(new Spec(process, key, null, null, fromMs, outcome, toMs, null));
        return this;
    }

    /** The history: lines ordered by time (completions first at equal times), indexed from 0. */
    History build() {
        record Line(long ms, int order, Spec spec, boolean invocation) {}
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            Spec spec = specs.get(i);
            lines.add(new Line(spec.fromMs, i, spec, true));
            if (spec.outcome != null) {
                if (spec.toMs <= spec.fromMs) {
                    throw new IllegalArgumentException("toMs: " + spec.toMs + " (expected: > fromMs " + spec.fromMs
                            + ")");
                }
                lines.add(new Line(spec.toMs, specs.size() + i, spec, false));
            }
        }
        // At equal times completions go first, so a process may invoke when its previous op completes.
        lines.sort(Comparator.comparingLong(Line::ms).thenComparing(Line::invocation).thenComparingInt(Line::order));
        Map<Spec, Op> invocations = new HashMap<>();
        List<Op> ops = new ArrayList<>();
        for (Line line : lines) {
            Spec s = line.spec;
            long index = ops.size();
            long time = line.ms * 1_000_000;
            int partition = partitions.getOrDefault(s.key, 0);
            Op op;
            if (line.invocation) {
                String session = sessions.get(s.process);
                op = s.element != null ? Op.invokeAppend(index, s.process, s.key, partition, s.element, time, session)
                        : Op.invokeRead(index, s.process, s.key, partition, time, session);
                invocations.put(s, op);
            } else {
                Op invocation = invocations.get(s);
                op = switch (s.outcome) {
                    case OK -> invocation.ok(index, time, s.list, "n1", s.version);
                    case FAIL -> invocation.fail(index, time, "n1", "refused");
                    case INFO -> invocation.info(index, time, null, "timeout");
                    case INVOKE -> throw new IllegalArgumentException("outcome: INVOKE");
                };
            }
            ops.add(op);
        }
        return History.of(ops);
    }

    /** The final read of {@code key} at {@code node}, in partition 0. */
    static FinalRead finalRead(String node, String key, Long... values) {
        return new FinalRead(node, key, 0, Arrays.asList(values));
    }

    /** A final state holding only {@code reads}. */
    static FinalState finals(FinalRead... reads) {
        return new FinalState(List.of(), List.of(reads));
    }

    /** A replica of partition {@code partition} of service {@code lists}. */
    static ReplicaState replica(String node, int partition, long version, String digest) {
        return new ReplicaState(node, "lists", partition, version, digest);
    }

    /** Identity-compared: two specs may describe equal operations. */
    private static final class Spec {
        final int process;
        final String key;
        final @Nullable Long element;
        final @Nullable List<Long> list;
        final long fromMs;
        final @Nullable OpType outcome;
        final long toMs;
        final @Nullable Long version;

        Spec(int process, String key, @Nullable Long element, @Nullable List<Long> list, long fromMs,
                @Nullable OpType outcome, long toMs, @Nullable Long version) {
            this.process = process;
            this.key = key;
            this.element = element;
            this.list = list;
            this.fromMs = fromMs;
            this.outcome = outcome;
            this.toMs = toMs;
            this.version = version;
        }
    }
}
