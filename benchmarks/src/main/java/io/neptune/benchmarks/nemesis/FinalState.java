package io.neptune.benchmarks.nemesis;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.neptune.benchmarks.nemesis.history.FinalState.ReplicaState;
import io.neptune.server.storage.PartitionDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's state after the run, written to {@code final-state.json}:
 *
 * <pre>{@code
 * {"replicas":[{"node":..,"service":..,"partition":..,"version":..,"digest":..}],
 *  "reads":[{"node":..,"key":..,"partition":..,"value":[...]}],
 *  "placement":{"partition":["node",..],..},
 *  "faults":[{"kind":..,"target":[..],"start":nanos,"end":nanos,"detail":".."}]}
 * }</pre>
 *
 * <p>{@code replicas} is every replica's answer to {@code ClusterAdmin.replicas} once the healed
 * cluster settled (or the settle timeout passed). {@code reads} is read directly from each node's
 * H2 file after the nodes were stopped cleanly: for every key of the history and every node hosting
 * its partition at the end (the final placement, {@link NemesisCluster#hosting}: placement changes move
 * replicas), the list that replica holds (empty if it has none), so nothing on the way (routing,
 * a primary's choice, a cache) can hide a diverged replica. A node that stopped hosting a partition
 * keeps its files, but is not read for it. {@code placement} is that final placement.
 *
 * <p>Thread-safety: immutable.
 *
 * @param replicas the replicas' versions and digests
 * @param reads every key's list at every replica of its partition
 * @param faults the faults applied
 * @param placement per partition, the nodes that hosted it at the end
 */
record FinalState(List<Map<String, Object>> replicas, List<Map<String, Object>> reads, List<Nemesis.Applied> faults,
        Map<Integer, List<String>> placement) {
    /**
     * Whether {@code replicas} (an agent's REPLICAS answer) shows a settled cluster: every partition
     * with {@code degree} replicas that answered, none recovering, and equal digests; with ordered
     * writes (levels 2 and 3) also one primary and equal versions (a level-1 replica's version is its
     * own log's length, and it has no primary, and only the rows its digest hashes are compared). Returns null if so, else the first partition that is not.
     */
    static @Nullable String unsettled(List<Map<String, Object>> replicas, int degree, boolean orderedWrites) {
        return unsettled(replicas, p -> degree, orderedWrites);
    }

    /**
     * As {@link #unsettled(List, int, boolean)}, with partition {@code p} expected on {@code degree(p)}
     * replicas (after placement changes: the nodes that host it now).
     */
    static @Nullable String unsettled(List<Map<String, Object>> replicas, java.util.function.IntUnaryOperator degree,
            boolean orderedWrites) {
        Map<Object, List<Map<String, Object>>> byPartition = replicas.stream()
                .collect(Collectors.groupingBy(r -> r.get("partition"), LinkedHashMap::new, Collectors.toList()));
        if (byPartition.size() != ListAppendService.PARTITIONS) {
            return "partitions answering: " + byPartition.keySet() + " (expected: all " + ListAppendService.PARTITIONS
                    + ")";
        }
        for (Map.Entry<Object, List<Map<String, Object>>> entry : byPartition.entrySet()) {
            List<Map<String, Object>> answers = entry.getValue();
            String problem = null;
            int expected = degree.applyAsInt(((Number) entry.getKey()).intValue());
            if (answers.size() != expected
                    || answers.stream().anyMatch(r -> !"".equals(r.getOrDefault("error", "")))) {
                problem = "replicas " + answers.size() + " (expected: " + expected + " answering)";
            } else if ((orderedWrites && answers.stream().filter(r -> "PRIMARY".equals(r.get("role"))).count() != 1)
                    || answers.stream().anyMatch(r -> "RECOVERING".equals(r.get("role")))) {
                problem = "roles " + answers.stream().map(r -> r.get("node") + "=" + r.get("role")).toList();
            } else if (!agree(answers, orderedWrites)) {
                problem = "versions/digests " + answers.stream()
                        .map(r -> r.get("node") + "=" + r.get("version") + "/" + r.get("digest")).toList();
            }
            if (problem != null) {
                return "partition " + entry.getKey() + ": " + problem;
            }
        }
        return null;
    }

    /**
     * Whether {@code answers} agree: on version and digest with ordered writes, else (level 1) on the rows
     * their digests hash ({@link ReplicaState#rows}).
     */
    private static boolean agree(List<Map<String, Object>> answers, boolean orderedWrites) {
        Function<Map<String, Object>, String> state = orderedWrites ? r -> r.get("version") + " " + r.get("digest")
                : r -> ReplicaState.rows(String.valueOf(r.get("digest")));
        return answers.stream().map(state).distinct().count() == 1;
    }

    /** The replica entries in the final-state format (node, service, partition, version, digest). */
    static List<Map<String, Object>> replicaEntries(List<Map<String, Object>> answers) {
        List<Map<String, Object>> entries = new ArrayList<>();
        for (Map<String, Object> answer : answers) {
            if (!"".equals(answer.getOrDefault("error", ""))) {
                continue;   // a replica that did not answer has no version; it is missing from the list
            }
            Map<String, Object> entry = new LinkedHashMap<>();
            for (String field : List.of("node", "service", "partition", "version", "digest")) {
                entry.put(field, answer.get(field));
            }
            entries.add(entry);
        }
        return entries;
    }

    /**
     * Reads every key's list from each stopped node's H2 file: for every key in {@code keys} and every
     * node hosting its partition. A node whose file is missing contributes nothing (noted in the run).
     */
    static List<Map<String, Object>> readReplicaFiles(NemesisCluster cluster, Map<String, Integer> keys,
            List<String> problems) {
        List<Map<String, Object>> reads = new ArrayList<>();
        for (int i = 0; i < cluster.spec().nodes(); i++) {
            Path directory = cluster.serviceDataDirectory(i);
            if (!Files.exists(directory.resolve(ListAppendService.DATABASE + ".mv.db"))) {
                problems.add(NemesisCluster.nodeName(i) + ": no database file in " + directory);
                continue;
            }
            Map<Integer, Map<String, List<Long>>> lists;
            try (PartitionDatabase database = PartitionDatabase.open(directory, ListAppendService.DATABASE)) {
                ListAppendService.createSchema(database);
                lists = ListAppendService.dump(database);
            } catch (RuntimeException e) {
                problems.add(NemesisCluster.nodeName(i) + ": cannot read " + directory + ": " + e);
                continue;
            }
            java.util.Set<Integer> hosting = cluster.hosting(i);
            for (Map.Entry<String, Integer> key : keys.entrySet()) {
                if (!hosting.contains(key.getValue())) {
                    continue;
                }
                Map<String, Object> read = new LinkedHashMap<>();
                read.put("node", NemesisCluster.nodeName(i));
                read.put("key", key.getKey());
                read.put("partition", key.getValue());
                read.put("value", lists.getOrDefault(key.getValue(), Map.of()).getOrDefault(key.getKey(), List.of()));
                reads.add(read);
            }
        }
        return reads;
    }

    /** Writes the state as pretty-printed JSON. */
    void write(Path file) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("replicas", replicas);
        root.put("reads", reads);
        root.put("placement", placement);
        root.put("faults", faults.stream().map(f -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("kind", f.kind());
            entry.put("target", f.target());
            entry.put("start", f.start());
            entry.put("end", f.end());
            entry.put("detail", f.detail());
            return entry;
        }).toList());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
    }

    /** Replicas (of the final-state list) per partition, for the report. */
    Map<Integer, List<Map<String, Object>>> replicasByPartition() {
        return replicas.stream().collect(Collectors.groupingBy(r -> ((Number) Objects.requireNonNull(
                r.get("partition"))).intValue(), java.util.TreeMap::new, Collectors.toList()));
    }
}
