package io.neptune.benchmarks.nemesis.history;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A validated history: its lines in index order and the operations they form. Immutable.
 *
 * <p>Valid means: indices strictly increase; each process alternates an invocation and at most one
 * completion of the same function and key (a process never has two operations in flight); and no
 * element is appended to the same key twice. An invocation still open at the end counts as
 * {@link OpType#INFO}.
 */
public final class History {
    private final List<Op> ops;
    private final List<Operation> operations;

    private History(List<Op> ops, List<Operation> operations) {
        this.ops = ops;
        this.operations = operations;
    }

    /**
     * The history made of {@code ops}, in index order.
     *
     * @throws IllegalArgumentException naming the first line that breaks a rule above
     */
    public static History of(List<Op> ops) {
        requireNonNull(ops, "ops");
        List<Op> lines = List.copyOf(ops);
        List<Operation> operations = new ArrayList<>();
        Map<Integer, Integer> inFlight = new HashMap<>();  // process -> position in operations
        Map<String, Set<Long>> appended = new HashMap<>();
        long previous = -1;
        for (Op op : lines) {
            if (op.index() <= previous) {
                throw new IllegalArgumentException("index: " + op.index() + " after " + previous
                        + " (expected: strictly increasing)");
            }
            previous = op.index();
            Integer open = inFlight.get(op.process());
            if (op.isInvoke()) {
                if (open != null) {
                    throw new IllegalArgumentException("op: " + op + " while " + operations.get(open).invocation()
                            + " is in flight (expected: one operation per process at a time)");
                }
                if (op.f() == OpFunction.APPEND
                        && !appended.computeIfAbsent(op.key(), k -> new HashSet<>()).add(op.element())) {
                    throw new IllegalArgumentException("op: " + op + " (expected: elements unique per key)");
                }
                inFlight.put(op.process(), operations.size());
                operations.add(new Operation(op, null));
            } else {
                if (open == null) {
                    throw new IllegalArgumentException("op: " + op + " (expected: an invocation of p"
                            + op.process() + " in flight)");
                }
                operations.set(open, new Operation(operations.get(open).invocation(), op));
                inFlight.remove(op.process());
            }
        }
        return new History(lines, List.copyOf(operations));
    }

    /** The lines, in index order. */
    public List<Op> ops() {
        return ops;
    }

    /** The operations, in invocation order. */
    public List<Operation> operations() {
        return operations;
    }

    /** How many operations ended with {@code outcome} (never-completed ones count as INFO). */
    public long count(OpType outcome) {
        return operations.stream().filter(o -> o.outcome() == outcome).count();
    }

    /** How many distinct processes invoked operations. */
    public long processes() {
        return operations.stream().mapToInt(Operation::process).distinct().count();
    }

    @Override
    public String toString() {
        return "History[" + operations.size() + " operations: " + count(OpType.OK) + " ok, " + count(OpType.FAIL)
                + " fail, " + count(OpType.INFO) + " info, by " + processes() + " processes]";
    }
}
