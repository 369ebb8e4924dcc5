package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.FailoverMode;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random faults on five {@code majority}-mode replicas: splits of every shape, pauses, kills
 * and restarts, lost and held messages, with writes all along. After healing, every write that was
 * acknowledged must be applied exactly once on every replica, every replica must have applied the
 * same writes in the same order, and no epoch may ever have had two primaries (checked at every
 * step by the cluster). A failing seed reproduces the run.
 */
class MajorityNemesisTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void acknowledgedWritesSurviveRandomFaults(long seed) {
        Random random = new Random(seed);
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 5, seed)) {
            List<String> names = List.of("n1", "n2", "n3", "n4", "n5");
            Map<String, Node> nodes = new LinkedHashMap<>();
            for (int i = 0; i < names.size(); i++) {
                nodes.put(names.get(i), cluster.start(names.get(i), 5 - i));
            }
            Map<String, CompletableFuture<ResponseMessage>> writes = new LinkedHashMap<>();
            List<Node> paused = new ArrayList<>();
            for (int step = 0; step < 300; step++) {
                int fault = random.nextInt(20);
                List<Node> live = new ArrayList<>(cluster.live());
                if (fault == 0) {
                    List<Node> shuffled = new ArrayList<>(live);
                    java.util.Collections.shuffle(shuffled, random);
                    int cut = 1 + random.nextInt(Math.max(1, shuffled.size() - 1));
                    cluster.partition(shuffled.subList(0, cut), shuffled.subList(cut, shuffled.size()));
                } else if (fault == 1) {
                    cluster.heal();
                } else if (fault == 2 && paused.isEmpty() && !live.isEmpty()) {
                    Node n = live.get(random.nextInt(live.size()));
                    cluster.pause(n);
                    paused.add(n);
                } else if (fault == 3 && !paused.isEmpty()) {
                    cluster.resume(paused.remove(0));
                } else if (fault == 4 && live.size() > 3 && paused.isEmpty()) {
                    Node victim = live.get(random.nextInt(live.size()));
                    cluster.kill(victim);
                } else if (fault == 5) {
                    for (String name : names) {
                        if (cluster.live().stream().noneMatch(n -> n.id.value().equals(name))) {
                            nodes.put(name, cluster.start(name, 5 - names.indexOf(name)));
                            break;
                        }
                    }
                } else if (fault == 6) {
                    String victim = names.get(random.nextInt(names.size()));
                    cluster.drop((from, call) -> call.startsWith(victim + ":replicate") && random.nextInt(3) == 0);
                } else if (fault == 7) {
                    cluster.drop((from, call) -> false);
                }
                for (Node n : cluster.live()) {
                    boolean primary = n.role() == io.neptune.core.ReplicaRole.PRIMARY;
                    if ((primary || random.nextInt(4) == 0) && !paused.contains(n)) {
                        String w = "w" + writes.size();
                        writes.put(w, cluster.write(n, w));
                    }
                }
                cluster.advance(Duration.ofMillis(50 + random.nextInt(200)));
            }
            cluster.drop((from, call) -> false);
            cluster.heal();
            paused.forEach(cluster::resume);
            for (String name : names) {
                if (cluster.live().stream().noneMatch(n -> n.id.value().equals(name))) {
                    nodes.put(name, cluster.start(name, 5 - names.indexOf(name)));
                }
            }
            cluster.runUntil(() -> cluster.primary().isPresent() && converged(cluster.live()), "all five converged");

            List<String> applied = cluster.live().iterator().next().applied();
            assertThat(applied).as("seed %d: applied twice", seed).doesNotHaveDuplicates();
            List<String> acknowledged = writes.entrySet().stream()
                    .filter(e -> e.getValue().isDone() && e.getValue().join().status() == Status.OK)
                    .map(Map.Entry::getKey).toList();
            assertThat(applied).as("seed %d: acknowledged writes lost", seed).containsAll(acknowledged);
            assertThat(acknowledged).as("seed %d: the run acknowledged writes", seed).isNotEmpty();
            System.out.printf("STATS seed %d: %d writes, %d acknowledged, %d applied, epoch %d%n", seed, writes.size(),
                    acknowledged.size(), applied.size(), cluster.live().iterator().next().epoch());
        }
    }

    private static boolean converged(java.util.Collection<Node> nodes) {
        List<String> first = null;
        long lsn = -1;
        for (Node n : nodes) {
            if (first == null) {
                first = n.applied();
                lsn = n.core.log.lastLsn();
            } else if (!n.applied().equals(first) || n.core.log.lastLsn() != lsn || n.core.applied != lsn) {
                return false;
            }
        }
        return nodes.size() == 5;
    }
}
