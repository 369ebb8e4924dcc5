package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ReplicaRole;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Entries;
import io.neptune.server.JournalTestService.ReadAll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Level 2, three replica processes, eight concurrent writers: the primary is killed with SIGKILL
 * in the middle of the stream. Every acknowledged write must be on every survivor and, after the
 * killed node restarts and recovers, on it too; all replicas end with equal versions and digests.
 */
class PrimaryKillIT {
    private static final String SERVICE = "journal";
    private static final int PARTITIONS = 4;

    @TempDir
    Path work;

    @Test
    void acknowledgedWritesSurviveAPrimaryKilledMidStream() throws Exception {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            cluster.define("node-1", JournalTestService.class, 3, 3);
            cluster.define("node-2", JournalTestService.class, 2, 3);
            cluster.define("node-3", JournalTestService.class, 1, 3);
            cluster.start("node-1");
            cluster.start("node-2");
            cluster.start("node-3");
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                ReplicatedProcesses.await(() -> cluster.primary(SERVICE, partition).orElse("").equals("node-1")
                        && cluster.observer().replicaRoles(SERVICE, partition).values().stream()
                                .filter(r -> r == ReplicaRole.SECONDARY).count() == 2,
                        Duration.ofSeconds(60), "node-1 primary of " + SERVICE + "#" + partition + " with 2 secondaries");
            }

            NeptuneClient client = cluster.observer().client();
            Map<Integer, Set<String>> acknowledged = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            AtomicLong acks = new AtomicLong();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                int writer = w;
                Thread thread = new Thread(() -> {
                    NeptuneHandle handle = NeptuneHandle.create();
                    for (int i = 0; running.get(); i++) {
                        int partition = (writer + i) % PARTITIONS;
                        String text = "w" + writer + "-" + i;
                        try {
                            client.call(handle, SERVICE, partition, "append", AccessMode.WRITE, new Append(text),
                                    JournalTestService.Appended.class);
                            acknowledged.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(text);
                            acks.incrementAndGet();
                        } catch (RuntimeException e) {
                            failures.add(text + ": " + e);
                        }
                    }
                }, "writer-" + w);
                thread.setDaemon(true);
                writers.add(thread);
                thread.start();
            }
            ReplicatedProcesses.await(() -> acks.get() >= 400, Duration.ofSeconds(60), "400 acknowledged writes");
            cluster.kill("node-1");
            long atKill = acks.get();
            ReplicatedProcesses.await(() -> acks.get() >= atKill + 400, Duration.ofSeconds(60),
                    "400 more acknowledged writes after the kill");
            running.set(false);
            for (Thread thread : writers) {
                thread.join(30_000);
            }
            System.out.printf("PrimaryKillIT: %d acknowledged writes (%d before the kill), %d failed calls%n",
                    acks.get(), atKill, failures.size());

            assertJournalsHold(cluster, acknowledged, List.of("node-2", "node-3"));

            cluster.start("node-1");
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                ReplicatedProcesses.await(() -> cluster.observer().replicaRoles(SERVICE, partition).size() == 3
                        && !cluster.observer().replicaRoles(SERVICE, partition).containsValue(ReplicaRole.RECOVERING),
                        Duration.ofSeconds(60), "node-1 recovered " + SERVICE + "#" + partition);
            }
            assertJournalsHold(cluster, acknowledged, List.of("node-1", "node-2", "node-3"));
        }
    }

    /** Every replica listed has the same version and digest, and its journal holds every acknowledged write once. */
    private static void assertJournalsHold(ReplicatedProcesses cluster, Map<Integer, Set<String>> acknowledged,
            List<String> nodes) {
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            ReplicatedProcesses.await(() -> nodes.stream().map(n -> cluster.status(n, SERVICE, partition))
                    .map(s -> s.get("applied") + "/" + s.get("digest")).distinct().count() == 1,
                    Duration.ofSeconds(30), "equal versions and digests of " + SERVICE + "#" + partition + " on " + nodes);
            List<String> journal = cluster.observer().client().call(NeptuneHandle.create(), SERVICE, partition, "all",
                    AccessMode.READ, new ReadAll(), Entries.class).entries();
            assertThat(new HashSet<>(journal)).as("journal of partition %d", partition)
                    .containsAll(acknowledged.getOrDefault(partition, Set.of()));
            assertThat(journal).as("no write applied twice in partition %d", partition).doesNotHaveDuplicates();
        }
    }
}
