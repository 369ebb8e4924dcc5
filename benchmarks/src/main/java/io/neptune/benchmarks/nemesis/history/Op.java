package io.neptune.benchmarks.nemesis.history;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One line of a history: the invocation of an operation by a client process, or its completion.
 * See the package documentation for the file format.
 *
 * @param index position in the history, from 0, strictly increasing in file order
 * @param process the logical client process; it has at most one operation in flight
 * @param type {@link OpType#INVOKE} or the completion's outcome
 * @param f what the operation does
 * @param key the list it works on
 * @param partition the partition holding {@code key}
 * @param element for {@link OpFunction#APPEND} (invocation and completion): the long appended,
 *     unique per key; absent for reads
 * @param list for a read's {@link OpType#OK} completion: the list read, in order; absent otherwise
 * @param time when it happened, in nanoseconds since the run started (one clock for all processes)
 * @param node the Neptune node that answered, if known
 * @param version the partition version the response carried, if any
 * @param session the client session ({@code NeptuneHandle}) the process used, if it has a name
 * @param error why it failed or why its outcome is unknown (FAIL and INFO), if known
 */
public record Op(long index, int process, OpType type, OpFunction f, String key, int partition,
        @Nullable Long element, @Nullable List<Long> list, long time, @Nullable String node,
        @Nullable Long version, @Nullable String session, @Nullable String error) {
    /** At most this many elements of a list are printed by {@link #toString()}. */
    private static final int PRINTED_ELEMENTS = 8;

    public Op {
        requireNonNull(type, "type");
        requireNonNull(f, "f");
        requireNonNull(key, "key");
        nonNegative("index", index);
        nonNegative("process", process);
        nonNegative("partition", partition);
        nonNegative("time", time);
        if (version != null) {
            nonNegative("version", version);
        }
        if ((f == OpFunction.APPEND) != (element != null)) {
            throw new IllegalArgumentException("element: " + element + " of " + f + " #" + index
                    + " (expected: present exactly for appends)");
        }
        boolean readOk = f == OpFunction.READ && type == OpType.OK;
        if (readOk != (list != null)) {
            throw new IllegalArgumentException("list: " + list + " of " + f + " " + type + " #" + index
                    + " (expected: present exactly for a read's ok completion)");
        }
        list = list == null ? null : List.copyOf(list);
    }

    /** The invocation of an append of {@code element} to {@code key}. */
    public static Op invokeAppend(long index, int process, String key, int partition, long element, long time,
            @Nullable String session) {
        return new Op(index, process, OpType.INVOKE, OpFunction.APPEND, key, partition, element, null, time, null,
                null, session, null);
    }

    /** The invocation of a read of {@code key}. */
    public static Op invokeRead(long index, int process, String key, int partition, long time,
            @Nullable String session) {
        return new Op(index, process, OpType.INVOKE, OpFunction.READ, key, partition, null, null, time, null, null,
                session, null);
    }

    /**
     * The {@link OpType#OK} completion of this invocation.
     *
     * @param list the list read, for a read; {@code null} for an append
     */
    public Op ok(long index, long time, @Nullable List<Long> list, @Nullable String node, @Nullable Long version) {
        return completion(OpType.OK, index, time, list, node, version, null);
    }

    /** The {@link OpType#FAIL} completion of this invocation: it definitely did not take effect. */
    public Op fail(long index, long time, @Nullable String node, @Nullable String error) {
        return completion(OpType.FAIL, index, time, null, node, null, error);
    }

    /** The {@link OpType#INFO} completion of this invocation: it may or may not take effect. */
    public Op info(long index, long time, @Nullable String node, @Nullable String error) {
        return completion(OpType.INFO, index, time, null, node, null, error);
    }

    private Op completion(OpType outcome, long index, long time, @Nullable List<Long> list, @Nullable String node,
            @Nullable Long version, @Nullable String error) {
        if (type != OpType.INVOKE) {
            throw new IllegalStateException("op #" + this.index + " is " + type + " (expected: an invocation)");
        }
        return new Op(index, process, outcome, f, key, partition, element, list, time, node, version, session, error);
    }

    /** Whether this line is an invocation. */
    public boolean isInvoke() {
        return type == OpType.INVOKE;
    }

    /** A one-line description, e.g. {@code #12 p3 ok append x 42 at 1.234 s on node-2 v17}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder().append('#').append(index).append(" p").append(process).append(' ')
                .append(type.jsonName()).append(' ').append(f.jsonName()).append(' ').append(key);
        if (element != null) {
            s.append(' ').append(element);
        }
        if (list != null) {
            s.append(' ').append(abbreviate(list));
        }
        s.append(String.format(Locale.ROOT, " at %.3f s", time / 1e9));
        if (node != null) {
            s.append(" on ").append(node);
        }
        if (version != null) {
            s.append(" v").append(version);
        }
        if (session != null) {
            s.append(" session ").append(session);
        }
        if (error != null) {
            s.append(": ").append(error);
        }
        return s.toString();
    }

    /**
     * {@code list} as {@code [1, 2, 3]}, or for a long one its first and last elements and its
     * size, e.g. {@code [1, 2, 3, 4 … 98, 99, 100, 101] (101 elements)}.
     */
    public static String abbreviate(List<Long> list) {
        if (list.size() <= PRINTED_ELEMENTS) {
            return list.toString();
        }
        int half = PRINTED_ELEMENTS / 2;
        String head = list.subList(0, half).toString();
        String tail = list.subList(list.size() - half, list.size()).toString();
        return head.substring(0, head.length() - 1) + " … " + tail.substring(1) + " (" + list.size() + " elements)";
    }

    private static void nonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
        }
    }
}
