package io.neptune.server.cli;

import io.neptune.core.ReplicaRole;
import io.neptune.server.ClusterAdmin;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Prints a drain's progress as the admin node's yellow page shows it: each primary role that moves
 * off the node (and where to), then the node's departure.
 */
final class DrainProgress {
    private static final long POLL_MILLIS = 100;

    private DrainProgress() {}

    /** Watches {@code node} until it leaves the yellow page or {@code limit} passes; returns whether it left. */
    static boolean watch(ClusterAdmin admin, String node, List<String> primaries, Duration limit)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        Set<String> left = new HashSet<>(primaries);
        while (System.nanoTime() - deadline < 0) {
            Map<String, String> primaryOf = new TreeMap<>();
            for (AnnouncedReplica r : admin.announcedReplicas()) {
                if (r.role() == ReplicaRole.PRIMARY) {
                    primaryOf.put(r.service() + "#" + r.partition(), r.node());
                }
            }
            for (String partition : List.copyOf(left)) {
                String now = primaryOf.get(partition);
                if (now != null && !now.equals(node)) {
                    left.remove(partition);
                    System.out.printf("[%5.1fs] %s: primary is now %s (%d left)%n", seconds(start), partition, now,
                            left.size());
                }
            }
            if (admin.nodes().stream().noneMatch(n -> n.node().equals(node))) {
                System.out.printf("[%5.1fs] %s finished its calls and left the cluster%n", seconds(start), node);
                return true;
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        }
        System.out.printf("[%5.1fs] %s is still in the yellow page; primaries not seen moving: %s%n", seconds(start),
                node, left.isEmpty() ? "none" : left);
        return false;
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
