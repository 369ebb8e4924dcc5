package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.SetTestService.Add;
import io.neptune.server.SetTestService.Added;
import io.neptune.server.SetTestService.Members;
import io.neptune.server.SetTestService.ReadMembers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Level 1 (write-anywhere, DESIGN §6.1), three replica processes, concurrent writers adding unique
 * elements to a replicated set while random nodes are killed with SIGKILL and restarted on their
 * data, several times. Once the writers stop, every replica must converge: equal digests on every
 * node, and every acknowledged element (and nothing that was never written) in every replica's
 * set, read from each node directly.
 * Writes whose outcome is unknown (the connection died with the request in flight) may or may not
 * be applied; they are not counted as acknowledged.
 */
class WriteAnywhereIT {
    private static final String SERVICE = "set";
    private static final int PARTITIONS = 4;
    private static final int WRITERS = 4;
    private static final int CYCLES = 3;
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @TempDir
    Path work;

    @Test
    void replicasConvergeAfterRepeatedKillsAndRestarts() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        System.out.printf("WriteAnywhereIT: seed %d%n", seed);
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            for (int i = 0; i < NODES.size(); i++) {
                cluster.define(NODES.get(i), SetTestService.class, NODES.size() - i, NODES.size());
            }
            for (String node : NODES) {
                cluster.start(node);
            }
            for (String node : NODES) {
                awaitServing(cluster, node);
            }

            NeptuneClient client = cluster.observer().client();
            Map<Integer, Set<String>> attempted = new ConcurrentHashMap<>();
            Map<Integer, Set<String>> acknowledged = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> unknown = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> failed = new ConcurrentLinkedQueue<>();
            AtomicLong acks = new AtomicLong();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Thread thread = new Thread(() -> {
                    NeptuneHandle handle = NeptuneHandle.create();
                    for (int i = 0; running.get(); i++) {
                        int partition = (writer + i) % PARTITIONS;
                        String element = "w" + writer + "-" + i;
                        attempted.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(element);
                        try {
                            client.call(handle, SERVICE, partition, "add", AccessMode.WRITE, new Add(element),
                                    Added.class, CallOptions.timeout(Duration.ofSeconds(5)));
                            acknowledged.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(element);
                            acks.incrementAndGet();
                        } catch (RuntimeException e) {
                            (e instanceof OutcomeUnknownException ? unknown : failed).add(element + ": " + e);
                        }
                    }
                }, "set-writer-" + w);
                thread.setDaemon(true);
                writers.add(thread);
                thread.start();
            }
            try {
                awaitAcks(acks, 200, "200 acknowledged adds before the first kill");
                for (int cycle = 1; cycle <= CYCLES; cycle++) {
                    String victim = NODES.get(random.nextInt(NODES.size()));
                    cluster.kill(victim);
                    System.out.printf("WriteAnywhereIT: cycle %d: killed %s at %d acks%n", cycle, victim, acks.get());
                    awaitAcks(acks, 150, "150 acknowledged adds while " + victim + " is down");
                    cluster.start(victim);
                    awaitServing(cluster, victim);
                    System.out.printf("WriteAnywhereIT: cycle %d: %s serving again at %d acks%n", cycle, victim,
                            acks.get());
                    awaitAcks(acks, 150, "150 acknowledged adds after " + victim + " came back");
                }
            } finally {
                running.set(false);
                for (Thread thread : writers) {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                }
            }
            long stopped = System.nanoTime();
            System.out.printf("WriteAnywhereIT: %d acknowledged adds, %d with unknown outcome, %d failed%n",
                    acks.get(), unknown.size(), failed.size());
            failed.stream().limit(5).forEach(f -> System.out.println("  failed: " + f));
            assertThat(writers).noneMatch(Thread::isAlive);

            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                ReplicatedProcesses.await(() -> NODES.stream()
                        .map(n -> cluster.status(n, SERVICE, partition).get("digest")).distinct().count() == 1,
                        Duration.ofSeconds(30), "equal digests of " + SERVICE + "#" + partition + " on " + NODES);
            }
            long convergedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
            System.out.printf("WriteAnywhereIT: all replicas converged %d ms after the writers stopped%n",
                    convergedMillis);

            for (int p = 0; p < PARTITIONS; p++) {
                Set<String> expected = acknowledged.getOrDefault(p, Set.of());
                List<String> first = null;
                for (String node : NODES) {
                    Members members = members(cluster, node, p);
                    assertThat(new HashSet<>(members.elements())).as("%s#%d on %s", SERVICE, p, node)
                            .containsAll(expected)
                            .isSubsetOf(attempted.getOrDefault(p, Set.of()))
                            .as("writes that failed other than as of unknown outcome did not run")
                            .noneMatch(e -> failed.stream().anyMatch(f -> f.startsWith(e + ": ")));
                    if (first == null) {
                        first = members.elements();
                    } else {
                        assertThat(members.elements()).as("%s#%d on %s equals %s", SERVICE, p, node, NODES.get(0))
                                .isEqualTo(first);
                    }
                }
            }
        }
    }

    private static void awaitAcks(AtomicLong acks, long more, String what) {
        long target = acks.get() + more;
        ReplicatedProcesses.await(() -> acks.get() >= target, Duration.ofSeconds(30), what);
    }

    /** Waits until the observer sees {@code node} serving every partition (caught up, not recovering). */
    private static void awaitServing(ReplicatedProcesses cluster, String node) {
        NodeId id = NodeId.of(node);
        ReplicatedProcesses.await(() -> {
            for (int p = 0; p < PARTITIONS; p++) {
                if (cluster.observer().replicaRoles(SERVICE, p).get(id) != ReplicaRole.SECONDARY) {
                    return false;
                }
            }
            return true;
        }, Duration.ofSeconds(30), node + " serving every partition of " + SERVICE);
    }

    /** Reads the whole set of {@code partition} from {@code node} itself, not load balanced. */
    private static Members members(ReplicatedProcesses cluster, String node, int partition) throws Exception {
        RequestMessage request = new RequestMessage(0, SERVICE, partition, "members", AccessMode.READ, 5000, 0,
                RequestId.NONE, Json.mapper().writeValueAsBytes(new ReadMembers()));
        ResponseMessage response = ((DefaultNeptuneClient) cluster.observer().client())
                .sendTo(NodeId.of(node), request, partition).get(10, TimeUnit.SECONDS);
        assertThat(response.status()).as("members of %s#%d from %s: %s", SERVICE, partition, node,
                response.errorMessage()).isEqualTo(Status.OK);
        return Json.mapper().readValue(response.payload(), Members.class);
    }
}
