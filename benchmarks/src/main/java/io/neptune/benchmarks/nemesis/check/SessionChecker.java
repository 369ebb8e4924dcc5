package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
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
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Level 3's session guarantees (progressive version delivery), per session (a process, unless the
 * history names sessions). For each read that completed OK, against the session's operations that
 * completed OK before it was invoked:
 * <ul>
 *   <li><b>monotonic reads</b>: it extends the longest list the session read of the key before;
 *   <li><b>monotonic versions</b>: its version is at least the highest version of the partition the
 *       session saw before, from any response (reads and appends, all keys of the partition);
 *   <li><b>read-your-writes</b>: it contains every element the session appended OK to the key.
 * </ul>
 * One anomaly per offending read and property. O(operations log operations + elements read).
 */
public final class SessionChecker {
    /** The checker's name in reports. */
    public static final String NAME = "sessions";

    private SessionChecker() {}

    /** Checks every session of {@code history}. */
    public static Verdict check(History history) {
        Map<String, List<Operation>> sessions = new LinkedHashMap<>();
        history.operations().forEach(op -> sessions.computeIfAbsent(op.sessionKey(), s -> new ArrayList<>()).add(op));
        Counts counts = new Counts();
        List<Anomaly> anomalies = new ArrayList<>();
        sessions.values().forEach(ops -> new Session().check(ops, counts, anomalies));
        Map<String, Long> measures = new LinkedHashMap<>();
        measures.put("sessions", (long) sessions.size());
        measures.put("readsChecked", counts.reads);
        measures.put("nonMonotonicReads", counts.backInTime);
        measures.put("versionsBack", counts.versionBack);
        measures.put("ownWritesMissed", counts.ownWritesMissed);
        return Verdict.of(NAME, anomalies, false, sessions.size() + " sessions, " + counts.reads + " reads: "
                + counts.backInTime + " not extending an earlier read of the session, " + counts.versionBack
                + " at a lower version than the session had seen, " + counts.ownWritesMissed
                + " missing the session's own acknowledged appends", measures);
    }

    private static final class Counts {
        long reads;
        long backInTime;
        long versionBack;
        long ownWritesMissed;
    }

    /** What one session has seen; operations are fed in invocation order. */
    private static final class Session {
        private final Map<String, Operation> longestRead = new HashMap<>();
        private final Map<Integer, Operation> highestVersion = new HashMap<>();
        private final Map<String, Set<Operation>> unconfirmedAppends = new HashMap<>();
        private final PriorityQueue<Operation> completing =
                new PriorityQueue<>(Comparator.comparingLong(Operation::completeTime));

        void check(List<Operation> ops, Counts counts, List<Anomaly> anomalies) {
            for (Operation op : ops) {
                while (!completing.isEmpty() && completing.peek().completeTime() < op.invokeTime()) {
                    learn(completing.poll());
                }
                if (op.f() == OpFunction.READ && op.isOk()) {
                    counts.reads++;
                    checkRead(op, counts, anomalies);
                }
                if (op.isOk()) {
                    completing.add(op);
                }
            }
        }

        private void checkRead(Operation read, Counts counts, List<Anomaly> anomalies) {
            Operation earlier = longestRead.get(read.key());
            boolean monotonic = earlier == null || Observations.isPrefix(earlier.list(), read.list());
            if (earlier != null && !monotonic) {
                counts.backInTime++;
                anomalies.add(anomaly("monotonic reads: " + describe(read) + " does not extend the session's earlier "
                        + describe(earlier), read, earlier));
            }
            Operation seen = highestVersion.get(read.partition());
            Long version = read.version();
            Long seenVersion = seen == null ? null : seen.version();
            if (seen != null && seenVersion != null && version != null && version < seenVersion) {
                counts.versionBack++;
                anomalies.add(anomaly("monotonic versions: " + describe(read) + " was served at version " + version
                        + " of partition " + read.partition() + " after the session saw version " + seenVersion,
                        read, seen));
            }
            Set<Operation> unconfirmed = unconfirmedAppends.getOrDefault(read.key(), Set.of());
            if (unconfirmed.isEmpty()) {
                return;
            }
            Set<Long> values = new HashSet<>(read.list());
            List<Op> ops = new ArrayList<>(read.ops());
            List<Long> missed = new ArrayList<>();
            for (Operation append : List.copyOf(unconfirmed)) {
                if (values.contains(append.element())) {
                    if (monotonic) {
                        unconfirmed.remove(append);  // later reads extend this one, or monotonic reads flags them
                    }
                } else {
                    missed.add(append.element());
                    ops.addAll(append.ops());
                }
            }
            if (!missed.isEmpty()) {
                counts.ownWritesMissed++;
                anomalies.add(new Anomaly("read-your-writes: " + describe(read) + " misses " + missed
                        + ", appended by the same session before the read", ops));
            }
        }

        /** Takes in an operation that completed OK before the next one was invoked. */
        private void learn(Operation op) {
            if (op.f() == OpFunction.READ) {
                Operation earlier = longestRead.get(op.key());
                if (earlier == null || Observations.isPrefix(earlier.list(), op.list())) {
                    longestRead.put(op.key(), op);  // a chain: a read that went back is flagged, not learned
                }
            } else {
                unconfirmedAppends.computeIfAbsent(op.key(), k -> new HashSet<>()).add(op);
            }
            Operation seen = highestVersion.get(op.partition());
            Long version = op.version();
            Long seenVersion = seen == null ? null : seen.version();
            if (version != null && (seenVersion == null || version > seenVersion)) {
                highestVersion.put(op.partition(), op);
            }
        }

        private static String describe(Operation read) {
            return "read #" + read.index() + " of " + read.key() + " " + Op.abbreviate(read.list());
        }

        private static Anomaly anomaly(String description, Operation read, Operation earlier) {
            List<Op> ops = new ArrayList<>(earlier.ops());
            ops.addAll(read.ops());
            return new Anomaly(description, ops);
        }
    }
}
