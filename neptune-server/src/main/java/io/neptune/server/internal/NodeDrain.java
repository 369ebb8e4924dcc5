package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Takes a node out of service without failing a call (docs/OPERATIONS.md, "Draining a node"):
 * <ol>
 *   <li>announce the node as draining, so clients choose its replicas for no new call while another
 *       replica can serve, and its replicas stand for no election;</li>
 *   <li>hand every primary role it holds to the best other replica (an operator's handover: no
 *       acknowledged write is lost, no write runs twice, the writes that arrive meanwhile are held
 *       and then sent on to the new primary);</li>
 *   <li>wait until no call has arrived for {@link #QUIET} (clients saw the announcement), then refuse
 *       new calls with {@code UNAVAILABLE} (they did not run: clients retry them elsewhere);</li>
 *   <li>wait until the calls in progress finished.</li>
 * </ol>
 * The caller then stops the node, which leaves the cluster. Level-1 (write-anywhere) replicas have
 * no primary: they just stop being chosen.
 *
 * <p>Thread-safety: {@link #run} is called once, on one thread; it blocks.
 */
final class NodeDrain {
    /** How long no call must arrive before the node stops taking calls. */
    static final Duration QUIET = Duration.ofMillis(250);
    private static final long ROUND_MILLIS = 100;

    private final NodeId node;
    private final ReplicationEngine replication;
    private final YellowPage yellowPage;
    private final Router router;
    private final Runnable announce;
    private final Collection<ServiceRuntime> services;

    NodeDrain(NodeId node, ReplicationEngine replication, YellowPage yellowPage, Router router, Runnable announce,
            Collection<ServiceRuntime> services) {
        this.node = requireNonNull(node, "node");
        this.replication = requireNonNull(replication, "replication");
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
        this.router = requireNonNull(router, "router");
        this.announce = requireNonNull(announce, "announce");
        this.services = List.copyOf(services);
    }

    /**
     * Drains the node, reporting each step to {@code progress}; returns whether every primary was
     * handed over (but those no other replica in the yellow page could take) and every call finished
     * within {@code timeout}. Either way the node refuses new calls when it returns.
     */
    boolean run(Duration timeout, Consumer<String> progress) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        replication.drain();
        announce.run();
        List<String> primaries = replication.primaries();
        progress.accept(node + " is draining: announced; " + primaries.size() + " primaries to hand over");
        boolean handedOver = handOverAll(deadline, progress);
        awaitQuiet(deadline);
        router.refuseCalls();
        progress.accept(node + " takes no new calls; " + inProgress() + " in progress");
        boolean finished = await(deadline, () -> inProgress() == 0);
        progress.accept(node + (handedOver && finished ? " is drained" : " drained with "
                + (handedOver ? "" : replication.primaries().size() + " primaries left, ") + inProgress()
                + " calls unfinished at the timeout"));
        return handedOver && finished;
    }

    private boolean handOverAll(long deadline, Consumer<String> progress) throws InterruptedException {
        Set<String> reported = ConcurrentHashMap.newKeySet(); // written by the callbacks' threads
        Map<String, Set<NodeId>> refused = new ConcurrentHashMap<>(); // by partition: who refused, tried last
        Set<String> alone = new TreeSet<>(); // primaries no other replica could take: reported, not waited for
        while (true) {
            List<String> primaries = new ArrayList<>();
            for (String primary : replication.primaries()) {
                if (!hasOtherReplica(service(primary), partition(primary))) {
                    if (alone.add(primary)) {
                        progress.accept(primary + ": no other replica to hand the primary role to; it stops with "
                                + node);
                    }
                } else {
                    primaries.add(primary);
                }
            }
            if (primaries.isEmpty()) {
                return true; // a primary alone in the yellow page had nowhere to go: the drain did what it could
            }
            if (System.nanoTime() - deadline >= 0) {
                progress.accept(node + ": timed out with primaries left: " + primaries);
                return false;
            }
            List<CompletableFuture<?>> rounds = new ArrayList<>();
            for (String primary : primaries) {
                Set<NodeId> refusedBy = refused.computeIfAbsent(primary, k -> ConcurrentHashMap.newKeySet());
                rounds.add(handOver(primary, refusedBy, reported, progress));
            }
            long left = deadline - System.nanoTime();
            try {
                CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new)).get(Math.max(1, left),
                        TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // a round that did not finish in time ends the loop at the deadline check
            }
            if (!replication.primaries().isEmpty()) {
                TimeUnit.MILLISECONDS.sleep(ROUND_MILLIS); // an election after a failed take-over settles
            }
        }
    }

    /**
     * One attempt to hand {@code primary} over, to a replica not in {@code refusedBy} if there is one;
     * notes a replica that refuses, and reports the first failure of each partition only.
     */
    private CompletableFuture<?> handOver(String primary, Set<NodeId> refusedBy, Set<String> reported,
            Consumer<String> progress) {
        return replication.handOver(service(primary), partition(primary), Set.copyOf(refusedBy)).whenComplete((to, e) -> {
            if (e == null) {
                progress.accept(primary + ": primary role handed to " + to);
                return;
            }
            if (e.getCause() instanceof ReplicationEngine.HandOverRefusedException r) {
                refusedBy.add(r.node());
            }
            if (reported.add(primary)) { // once: it is retried every round
                progress.accept(primary + ": not handed over yet (" + rootMessage(e) + "); retrying");
            }
        }).exceptionally(e -> null);
    }

    /** Waits until no call arrived for {@link #QUIET}: every client's yellow page shows the node draining. */
    private void awaitQuiet(long deadline) throws InterruptedException {
        long arrivals = router.arrivals();
        long since = System.nanoTime();
        while (System.nanoTime() - since < QUIET.toNanos() && System.nanoTime() - deadline < 0) {
            TimeUnit.MILLISECONDS.sleep(10);
            long now = router.arrivals();
            if (now != arrivals) {
                arrivals = now;
                since = System.nanoTime();
            }
        }
    }

    /**
     * Whether a node other than this one, and not draining, hosts a replica of {@code service#partition}
     * in the yellow page (serving or still recovering): one the primary role can go to, now or once it
     * caught up.
     */
    private boolean hasOtherReplica(String service, int partition) {
        return yellowPage.replicas(service, partition).stream().anyMatch(r -> !r.node().equals(node) && !r.draining());
    }

    /** The service of {@code service#partition}. */
    private static String service(String primary) {
        return primary.substring(0, primary.lastIndexOf('#'));
    }

    /** The partition of {@code service#partition}. */
    private static int partition(String primary) {
        return Integer.parseInt(primary.substring(primary.lastIndexOf('#') + 1));
    }

    private int inProgress() {
        return services.stream().mapToInt(ServiceRuntime::load).sum();
    }

    private static boolean await(long deadline, BooleanSupplier condition)
            throws InterruptedException {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        return true;
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage());
    }
}
