package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.OpFunction;
import io.neptune.benchmarks.nemesis.history.OpType;
import io.neptune.benchmarks.nemesis.history.Operation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Acknowledged writes lost: every append that completed OK must be in the final list of its key at
 * every replica the harness read after healing. An append whose outcome is unknown (INFO) may be
 * there or not; the summary counts both. One anomaly per lost append, naming the replicas that lack
 * it; the summary counts losses per replica.
 *
 * <p>UNKNOWN when an acknowledged append's key has no final read at all. O(appends + final elements).
 */
public final class LostWritesChecker {
    /** The checker's name in reports. */
    public static final String NAME = "lost-writes";

    private LostWritesChecker() {}

    /** Checks {@code history} against the final reads of {@code state}. */
    public static Verdict check(History history, FinalState state) {
        Map<String, Map<String, Set<Long>>> finals = new LinkedHashMap<>();
        Observations.finalListsByKey(state).forEach((key, lists) -> {
            Map<String, Set<Long>> sets = new LinkedHashMap<>();
            lists.forEach((node, list) -> sets.put(node, new HashSet<>(list)));
            finals.put(key, sets);
        });
        List<Anomaly> anomalies = new ArrayList<>();
        Map<String, Long> lostPerReplica = new TreeMap<>();
        long acknowledged = 0;
        long unchecked = 0;
        long infoApplied = 0;
        long infoNotApplied = 0;
        for (Operation op : history.operations()) {
            if (op.f() != OpFunction.APPEND || op.outcome() == OpType.FAIL) {
                continue;
            }
            Map<String, Set<Long>> replicas = finals.get(op.key());
            if (op.isOk()) {
                acknowledged++;
            }
            if (replicas == null) {
                unchecked += op.isOk() ? 1 : 0;
                continue;
            }
            List<String> lacking = new ArrayList<>();
            replicas.forEach((node, values) -> {
                if (!values.contains(op.element())) {
                    lacking.add(node);
                }
            });
            if (op.isOk() && !lacking.isEmpty()) {
                lacking.forEach(node -> lostPerReplica.merge(node, 1L, Long::sum));
                List<String> holding = new ArrayList<>(replicas.keySet());
                holding.removeAll(lacking);
                anomalies.add(new Anomaly("acknowledged append of " + op.element() + " to " + op.key()
                        + " is missing at " + String.join(", ", lacking)
                        + (holding.isEmpty() ? " (every replica read)" : " (present at " + String.join(", ", holding)
                        + ")"), op.ops()));
            } else if (!op.isOk()) {
                infoApplied += lacking.isEmpty() ? 1 : 0;
                infoNotApplied += lacking.size() == replicas.size() ? 1 : 0;
            }
        }
        Map<String, Long> measures = new LinkedHashMap<>();
        measures.put("acknowledged", acknowledged);
        measures.put("lost", (long) anomalies.size());
        measures.put("unchecked", unchecked);
        measures.put("infoApplied", infoApplied);
        measures.put("infoNotApplied", infoNotApplied);
        String perReplica = lostPerReplica.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
        String summary = acknowledged + " acknowledged appends, " + anomalies.size() + " missing from final reads"
                + (perReplica.isEmpty() ? "" : " (per replica: " + perReplica + ")")
                + (unchecked > 0 ? ", " + unchecked + " unchecked (no final read of their key)" : "")
                + "; unknown-outcome appends: " + infoApplied + " applied, " + infoNotApplied + " not";
        return Verdict.of(NAME, anomalies, unchecked > 0, summary, measures);
    }
}
