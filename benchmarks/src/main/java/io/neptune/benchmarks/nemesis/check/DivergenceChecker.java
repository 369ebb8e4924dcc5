package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.FinalState.ReplicaState;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.Op;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Replicas diverging after healing: all replicas of a partition report the same (version, digest),
 * and the final lists of a key read from different replicas are equal. At level 1 versions are
 * per-replica LSNs and writes commute, so only the digests' row hashes are compared and lists are
 * compared as sets. One anomaly per diverged partition and per diverged key; UNKNOWN without a final state.
 */
public final class DivergenceChecker {
    /** The checker's name in reports. */
    public static final String NAME = "divergence";

    private static final int PRINTED_DIGEST = 12;

    private DivergenceChecker() {}

    /** Checks the replicas and final reads of {@code state}. */
    public static Verdict check(FinalState state, Guarantees guarantees) {
        List<Anomaly> anomalies = new ArrayList<>();
        Map<String, List<ReplicaState>> partitions = new LinkedHashMap<>();
        state.replicas().forEach(r -> partitions.computeIfAbsent(r.service() + "#" + r.partition(),
                p -> new ArrayList<>()).add(r));
        int divergedPartitions = 0;
        for (Map.Entry<String, List<ReplicaState>> e : partitions.entrySet()) {
            Set<String> states = new HashSet<>();
            e.getValue().forEach(r -> states.add(guarantees.orderedWrites() ? r.version() + " " + r.digest()
                    : ReplicaState.rows(r.digest())));
            if (states.size() > 1) {
                divergedPartitions++;
                anomalies.add(new Anomaly(e.getKey() + " replicas differ: " + e.getValue().stream()
                        .map(r -> r.node() + " v" + r.version() + " digest " + r.digest().substring(0,
                                Math.min(PRINTED_DIGEST, r.digest().length())))
                        .collect(Collectors.joining(", ")), List.of()));
            }
        }
        Map<String, Map<String, List<Long>>> finals = Observations.finalListsByKey(state);
        int divergedKeys = 0;
        for (Map.Entry<String, Map<String, List<Long>>> e : finals.entrySet()) {
            Map<List<Long>, List<String>> nodesByList = new LinkedHashMap<>();
            e.getValue().forEach((node, list) -> nodesByList.computeIfAbsent(
                    guarantees.orderedWrites() ? list : list.stream().sorted().toList(), l -> new ArrayList<>())
                    .add(node));
            if (nodesByList.size() > 1) {
                divergedKeys++;
                anomalies.add(new Anomaly("final lists of " + e.getKey() + " differ: " + nodesByList.entrySet()
                        .stream().map(l -> String.join(", ", l.getValue()) + " " + Op.abbreviate(l.getKey()))
                        .collect(Collectors.joining(" vs ")) + firstDifference(nodesByList), List.of()));
            }
        }
        Map<String, Long> measures = new LinkedHashMap<>();
        measures.put("partitions", (long) partitions.size());
        measures.put("divergedPartitions", (long) divergedPartitions);
        measures.put("keys", (long) finals.size());
        measures.put("divergedKeys", (long) divergedKeys);
        boolean unknown = partitions.isEmpty() && finals.isEmpty();
        return Verdict.of(NAME, anomalies, unknown, partitions.size() + " partitions, " + divergedPartitions
                + " with replicas that differ (" + (guarantees.orderedWrites() ? "version and digest" : "digest")
                + "); " + finals.size() + " keys read from the replicas, " + divergedKeys + " with lists that differ",
                measures);
    }

    /** Where the first two distinct lists differ, for the reader. */
    private static String firstDifference(Map<List<Long>, List<String>> nodesByList) {
        List<List<Long>> lists = new ArrayList<>(nodesByList.keySet());
        List<Long> a = lists.get(0);
        List<Long> b = lists.get(1);
        int i = Observations.firstDifference(a, b);
        return i < 0 ? " (one is a prefix of the other, " + Math.abs(a.size() - b.size()) + " elements shorter)"
                : " (first difference at position " + i + ": " + a.get(i) + " vs " + b.get(i) + ")";
    }
}
