package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;

/**
 * The network of a simulation: each message is an event on the receiving process, delivered after
 * a random delay and in order per link (as one TCP connection carries a partition's messages),
 * unless the link reorders it. Partitions cut nodes into sides; a lossy spell drops messages and
 * duplicates some. A call whose message or reply is lost fails after {@link #CALL_TIMEOUT_NANOS}, as
 * the engine's peer calls time out; a call to a node that crashes fails when it crashes, as its
 * connection closes.
 *
 * <p>The yellow page each node sees lags the truth as JGroups' does: a node that crashed, froze or
 * went to the other side of a split leaves it 0.5 to 3 s later (failure detection), one that came
 * back or the split healed joins it 0.1 to 1 s later (join, merge); each observer learns on its own
 * schedule. Its entries carry the nodes' published state ({@link Replica}s), as announcements do.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimNetwork {
    /** The engine's peer-call timeout: twice the default ack timeout of 2 s. */
    static final long CALL_TIMEOUT_NANOS = 4_000_000_000L;

    private final Simulator sim;
    private final List<SimNode> nodes;
    /** Per node, its side of the partition; all equal when the network is whole. */
    private final int[] side;
    /** Per link (from * n + to), the time its last message arrives: the next one comes no earlier. */
    private final long[] linkTail;
    /** Per observer and node, whether the observer's yellow page lists the node. */
    private final boolean[][] sees;
    private double dropRate;
    private double duplicateRate;
    private double reorderRate;
    private final List<AnswerListener> answers = new ArrayList<>();

    /** Sees each answer a replica gives to a peer's call, when it gives it. */
    @FunctionalInterface
    interface AnswerListener {
        void answered(SimNode node, String method, Object message, Object reply);
    }

    /** A network of {@code size} nodes, which {@code nodes} holds once they are made. */
    SimNetwork(Simulator sim, List<SimNode> nodes, int size) {
        this.sim = sim;
        this.nodes = nodes;
        this.side = new int[size];
        this.linkTail = new long[size * size];
        this.sees = new boolean[size][size];
    }

    boolean reachable(int a, int b) {
        return side[a] == side[b];
    }

    /** Puts {@code cut} on a side of its own, away from the rest. */
    void partition(List<Integer> cut) {
        java.util.Arrays.fill(side, 0);
        cut.forEach(i -> side[i] = 1);
        changed();
    }

    void heal() {
        java.util.Arrays.fill(side, 0);
        changed();
    }

    /**
     * Who is alive or reachable changed: each observer's yellow page follows after its failure
     * detection (to drop a node) or its join or merge (to add one) took their time.
     */
    void changed() {
        for (SimNode observer : nodes) {
            int o = observer.index();
            boolean drops = false;
            for (int n = 0; n < sees.length; n++) {
                drops |= sees[o][n] && !truth(o, n);
            }
            long delay = drops ? sim.millisBetween(500, 3000) : sim.millisBetween(100, 1000);
            sim.schedule(delay, o, "view", () -> refresh(o));
        }
    }

    private void refresh(int observer) {
        for (int n = 0; n < sees.length; n++) {
            sees[observer][n] = truth(observer, n);
        }
    }

    /** Whether {@code node} is alive, not frozen and on {@code observer}'s side: what a detector would conclude. */
    private boolean truth(int observer, int node) {
        SimProcess p = nodes.get(node).process();
        return p.alive() && (node == observer || !p.paused()) && reachable(observer, node);
    }

    boolean whole() {
        for (int s : side) {
            if (s != 0) {
                return false;
            }
        }
        return true;
    }

    /** {@code listener} sees each answer a replica gives to a peer's call from now on, after those added before it. */
    void onAnswer(AnswerListener listener) {
        answers.add(listener);
    }

    /** Starts or ends (all zero) a spell of lossy links. */
    void lossy(double drop, double duplicate, double reorder) {
        dropRate = drop;
        duplicateRate = duplicate;
        reorderRate = reorder;
    }

    /** The yellow page as {@code self} sees it now. */
    List<Replica> view(int self) {
        List<Replica> view = new ArrayList<>(nodes.size());
        for (SimNode n : nodes) {
            if (n.index() == self || sees[self][n.index()]) {
                view.add(n.asReplica());
            }
        }
        return view;
    }

    /** The arrival delay of a message from {@code from} to {@code to} sent now, in order on its link. */
    private long delay(int from, int to) {
        long delay = sim.chance(0.02) ? sim.millisBetween(5, 60) : sim.millisBetween(0.05, 1.5);
        int link = from * side.length + to;
        long arrives = sim.nanos() + delay;
        if (!sim.chance(reorderRate)) {
            arrives = Math.max(arrives, linkTail[link] + 1);
            linkTail[link] = arrives;
        }
        return arrives - sim.nanos();
    }

    private boolean lost(int from, int to) {
        return !reachable(from, to) || sim.chance(dropRate);
    }

    /** The peers of node {@code self}. */
    Peers peersOf(SimNode self) {
        return new Peers() {
            @Override
            public NodeId self() {
                return self.id();
            }

            @Override
            public List<Replica> replicas(String service, int partition) {
                return view(self.index());
            }

            @Override
            public <T> CompletableFuture<T> call(NodeId node, PeerRequest request, Class<T> replyType) {
                String method = request.method();
                Object message = request.message();
                return send(self, nodes.get(SimNode.indexOf(node)), method, message, replyType);
            }

            @Override
            public void announce() {
            }
        };
    }

    private <T> CompletableFuture<T> send(SimNode from, SimNode to, String method, Object message,
            Class<T> replyType) {
        CompletableFuture<T> result = new CompletableFuture<>();
        // the caller's timeout and the answer are bound to its incarnation, the message to the receiver's: a
        // connection does not outlive either process
        int caller = from.process().incarnation();
        int receiver = to.process().incarnation();
        ScheduledFuture<?> timeout = from.process().schedule(CALL_TIMEOUT_NANOS, "call timeout",
                () -> result.completeExceptionally(new TimeoutException(method + " to " + to.id() + ": no answer")));
        result.whenComplete((v, e) -> timeout.cancel(false));
        if (!to.process().alive() || lost(from.index(), to.index())) {
            return result;
        }
        to.connectionFailsOnCrash(result);
        int copies = sim.chance(duplicateRate) ? 2 : 1;
        for (int copy = 0; copy < copies; copy++) {
            boolean first = copy == 0;
            to.process().scheduleIn(receiver, delay(from.index(), to.index()), method, () -> to.replica().onPeerMessage(method,
                    message, reply -> {
                        answers.forEach(listener -> listener.answered(to, method, message, reply));
                        if (first && !lost(to.index(), from.index())) {
                            from.process().scheduleIn(caller, delay(to.index(), from.index()), "reply", () -> {
                                if (reply instanceof Throwable failure) {
                                    result.completeExceptionally(failure);
                                } else {
                                    result.complete(replyType.cast(reply));
                                }
                            });
                        }
                    }));
        }
        return result;
    }
}
