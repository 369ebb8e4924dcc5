package io.neptune.benchmarks.nemesis.check;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.FinalState.FinalRead;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpFunction;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Indexes of a history shared by the checkers. Thread-safety: stateless. */
final class Observations {
    private Observations() {}

    /**
     * A list observed for a key: by a read that completed OK, or by the harness's final read of one
     * replica.
     *
     * @param key the key
     * @param values the list, in order
     * @param operation the read, or {@code null} for a final read
     * @param node the replica of a final read, or the node that answered the read if known
     */
    record Read(String key, List<Long> values, @Nullable Operation operation, @Nullable String node) {
        boolean isFinal() {
            return operation == null;
        }

        /** The read's operation in the history; a final read has none. */
        Operation historyOperation() {
            return requireNonNull(operation, "operation: " + this + " is a final read");
        }

        /** The history lines of the read; none for a final read. */
        List<Op> ops() {
            return operation == null ? List.of() : operation.ops();
        }

        @Override
        public String toString() {
            return operation == null ? "the final read of " + key + " at " + node + " " + Op.abbreviate(values)
                    : "read #" + operation.index() + " of " + key + " " + Op.abbreviate(values);
        }
    }

    /** Per key, its appends by element. */
    static Map<String, Map<Long, Operation>> appendsByKey(History history) {
        Map<String, Map<Long, Operation>> appends = new HashMap<>();
        for (Operation op : history.operations()) {
            if (op.f() == OpFunction.APPEND) {
                appends.computeIfAbsent(op.key(), k -> new HashMap<>()).put(op.element(), op);
            }
        }
        return appends;
    }

    /** The reads that completed OK, in invocation order. */
    static List<Read> okReads(History history) {
        List<Read> reads = new ArrayList<>();
        for (Operation op : history.operations()) {
            if (op.f() == OpFunction.READ && op.isOk()) {
                reads.add(new Read(op.key(), op.list(), op, op.completion() == null ? null : op.completion().node()));
            }
        }
        return reads;
    }

    /** The final reads, in file order. */
    static List<Read> finalReads(FinalState state) {
        return state.reads().stream().map(Observations::read).toList();
    }

    /** Every read that completed OK, then every final read. */
    static List<Read> allReads(History history, FinalState state) {
        List<Read> reads = new ArrayList<>(okReads(history));
        reads.addAll(finalReads(state));
        return reads;
    }

    /** {@code reads} by key, keeping their order; keys in order of first appearance. */
    static Map<String, List<Read>> byKey(List<Read> reads) {
        Map<String, List<Read>> byKey = new LinkedHashMap<>();
        reads.forEach(r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
        return byKey;
    }

    /** Per key, per node, the final list (the last one if the file repeats a pair). */
    static Map<String, Map<String, List<Long>>> finalListsByKey(FinalState state) {
        Map<String, Map<String, List<Long>>> lists = new LinkedHashMap<>();
        for (FinalRead read : state.reads()) {
            lists.computeIfAbsent(read.key(), k -> new LinkedHashMap<>()).put(read.node(), read.values());
        }
        return lists;
    }

    /** The first position where {@code a} and {@code b} differ, or -1 if one is a prefix of the other. */
    static int firstDifference(List<Long> a, List<Long> b) {
        int common = Math.min(a.size(), b.size());
        for (int i = 0; i < common; i++) {
            if (!a.get(i).equals(b.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code prefix} is a prefix of (or equal to) {@code list}. */
    static boolean isPrefix(List<Long> prefix, List<Long> list) {
        return prefix.size() <= list.size() && firstDifference(prefix, list) < 0;
    }

    /** {@code nanos} as milliseconds, rounded down. */
    static long millis(long nanos) {
        return nanos / 1_000_000;
    }

    private static Read read(FinalRead read) {
        return new Read(read.key(), read.values(), null, read.node());
    }
}
