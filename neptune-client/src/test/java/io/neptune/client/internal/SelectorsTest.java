package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Poll;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The built-in replica selectors against hand-made candidates and a fake poller on a real timer. */
class SelectorsTest {
    private static final String SERVICE = "echo";
    private static final Duration DEADLINE = Duration.ofMillis(50);
    private static final Duration MAX_WAIT = Duration.ofSeconds(10);

    private static EventLoopGroup timer;

    private final Replica a = replica("a", 0);
    private final Replica b = replica("b", 0);
    private final Replica c = replica("c", 0);

    @BeforeAll
    static void startTimer() {
        timer = EventLoops.create("selectors-test", 1);
    }

    @AfterAll
    static void stopTimer() {
        timer.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static Replica replica(String node, int announcedLoad) {
        int port = 20_000 + node.hashCode() % 1000 * 2;
        return new Replica(NodeId.of(node), new InetSocketAddress("127.0.0.1", port),
                new InetSocketAddress("127.0.0.1", port + 1), 0, ReplicaRole.SECONDARY, 0, announcedLoad);
    }

    private static Replica pick(ReplicaSelector selector, List<Replica> candidates) throws Exception {
        return selector.select(SERVICE, 3, candidates).get(5, TimeUnit.SECONDS);
    }

    // ---------------------------------------------------------------- random, round robin, broadcast, ideal

    @Test
    void randomCoversEveryCandidate() throws Exception {
        ReplicaSelector random = Selectors.random();
        List<Replica> candidates = List.of(a, b, c);
        Set<Replica> seen = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            Replica chosen = pick(random, candidates);
            assertThat(candidates).contains(chosen);
            seen.add(chosen);
        }
        assertThat(seen).containsExactlyInAnyOrder(a, b, c);
    }

    @Test
    void roundRobinCyclesThroughTheCandidates() throws Exception {
        ReplicaSelector roundRobin = Selectors.roundRobin();
        List<Replica> candidates = List.of(a, b, c);
        List<Replica> picks = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            picks.add(pick(roundRobin, candidates));
        }
        assertThat(picks).containsExactly(a, b, c, a, b, c, a);
        assertThat(pick(Selectors.roundRobin(), candidates)).as("each selector has its own counter").isEqualTo(a);
    }

    @Test
    void broadcastPicksTheLowestAnnouncedLoad() throws Exception {
        Replica busy = replica("busy", 9);
        Replica idle = replica("idle", 1);
        Replica medium = replica("medium", 5);
        ReplicaSelector broadcast = Selectors.broadcast();
        for (int i = 0; i < 50; i++) {
            assertThat(pick(broadcast, List.of(busy, idle, medium))).isEqualTo(idle);
        }
    }

    @Test
    void broadcastBreaksTiesAtRandom() throws Exception {
        Replica tie1 = replica("tie1", 2);
        Replica tie2 = replica("tie2", 2);
        Replica busy = replica("busy", 3);
        Set<Replica> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            seen.add(pick(Selectors.broadcast(), List.of(tie1, busy, tie2)));
        }
        assertThat(seen).containsExactlyInAnyOrder(tie1, tie2);
    }

    @Test
    void idealPicksTheFewestOutstandingRequestsOfTheServiceAndCountsThePick() throws Exception {
        LoadTracker tracker = new LoadTracker();
        ReplicaSelector ideal = Selectors.ideal(tracker);
        assertThat(pick(ideal, List.of(c))).isEqualTo(c);
        assertThat(pick(ideal, List.of(c))).isEqualTo(c);
        assertThat(tracker.outstanding(c.node(), SERVICE)).as("each pick counts").isEqualTo(2);
        Set<Replica> otherService = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            otherService.add(ideal.select("other-service", 0, List.of(a, c)).get());
        }
        assertThat(otherService).as("another service's count is its own").containsExactlyInAnyOrder(a, c);

        assertThat(pick(ideal, List.of(a, b, c))).isIn(a, b);
        assertThat(pick(ideal, List.of(a, b, c))).isIn(a, b);
        assertThat(tracker.outstanding(a.node(), SERVICE)).isEqualTo(1);
        assertThat(tracker.outstanding(b.node(), SERVICE)).isEqualTo(1);

        tracker.end(c.node(), SERVICE);
        tracker.end(c.node(), SERVICE);
        assertThat(pick(ideal, List.of(a, b, c))).isEqualTo(c);
    }

    @Test
    void idealNeverGivesTwoConcurrentPicksTheSameIdleReplica() throws Exception {
        LoadTracker tracker = new LoadTracker();
        ReplicaSelector ideal = Selectors.ideal(tracker);
        List<Replica> candidates = List.of(a, b, c, replica("d", 0));
        int threads = 4;
        int picksEach = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < picksEach; i++) {
                        ideal.select(SERVICE, 0, candidates).join();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        // the least loaded is chosen and counted in one step, so the counts never drift apart
        for (Replica r : candidates) {
            assertThat(tracker.outstanding(r.node(), SERVICE)).as("outstanding on %s", r.node())
                    .isEqualTo(threads * picksEach / candidates.size());
        }
    }

    // ---------------------------------------------------------------- random polling

    @Test
    void randomPollingPicksTheIdleReplicaAndDiscardsTheSilentPoll() throws Exception {
        Replica busy = replica("busy", 0);
        Replica idle = replica("idle", 0);
        Replica silent = replica("silent", 0);
        FakePoller poller = new FakePoller()
                .answer(busy, FakePoller.reply(100))
                .answer(idle, FakePoller.reply(1))
                .answer(silent, FakePoller.silent());
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 3, DEADLINE, true, MAX_WAIT);

        long start = System.nanoTime();
        CompletableFuture<Replica> result = selector.select(SERVICE, 3, List.of(busy, idle, silent));
        Replica chosen = result.get(5, TimeUnit.SECONDS);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertThat(chosen).isEqualTo(idle);
        assertThat(elapsed).as("waits for the deadline, not for the silent replica")
                .isGreaterThanOrEqualTo(DEADLINE.minusMillis(5))
                .isLessThan(Duration.ofSeconds(2));
        assertThat(poller.polled()).containsExactlyInAnyOrder(busy, idle, silent);
        assertDiscarded(poller.pollOf(silent));
    }

    @Test
    void classAwarePollingPicksTheReplicaWithTheLeastLoadOfTheCallsClass() throws Exception {
        Replica a = replica("a", 0);
        Replica b = replica("b", 0);
        Replica c = replica("c", 0);
        // b is the busiest overall, but has the fewest gold requests queued or running
        FakePoller poller = new FakePoller()
                .answer(a, FakePoller.reply(3, 3))
                .answer(b, FakePoller.reply(9, 1))
                .answer(c, FakePoller.reply(4, 2));
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 3, MAX_WAIT, true, MAX_WAIT);

        assertThat(selector.select(SERVICE, 3, "gold", List.of(a, b, c)).get(5, TimeUnit.SECONDS)).isEqualTo(b);
        assertThat(poller.classes).containsOnly("gold");
    }

    @Test
    void randomPollingCompletesAtOnceWhenEveryPollAnswered() throws Exception {
        FakePoller poller = new FakePoller()
                .answer(a, FakePoller.reply(4))
                .answer(b, FakePoller.reply(2))
                .answer(c, FakePoller.reply(3));
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 3, MAX_WAIT, true, MAX_WAIT);

        CompletableFuture<Replica> result = selector.select(SERVICE, 3, List.of(a, b, c));

        assertThat(result).as("no timer wait when all polls answered").isCompletedWithValue(b);
    }

    @Test
    void randomPollingFallsBackToARandomCandidateWhenNoPollAnswers() throws Exception {
        List<Replica> candidates = List.of(a, b, c);
        Set<Replica> seen = new HashSet<>();
        for (int round = 0; round < 30 && seen.size() < 3; round++) {
            FakePoller poller = new FakePoller()
                    .answer(a, FakePoller.silent())
                    .answer(b, FakePoller.failed())
                    .answer(c, FakePoller.reply(-1)); // -1: the node does not host the partition
            ReplicaSelector selector = Selectors.randomPolling(poller, timer, 3, Duration.ofMillis(10), true, MAX_WAIT);

            Replica chosen = pick(selector, candidates);

            assertThat(candidates).contains(chosen);
            assertDiscarded(poller.pollOf(a));
            seen.add(chosen);
        }
        assertThat(seen).as("the fallback is random, not always the first candidate").hasSizeGreaterThan(1);
    }

    @Test
    void randomPollingIgnoresFailedAndNotHostedAnswers() throws Exception {
        Replica failing = replica("failing", 0);
        Replica notHosted = replica("not-hosted", 0);
        Replica busy = replica("busy", 0);
        FakePoller poller = new FakePoller()
                .answer(failing, FakePoller.failed())
                .answer(notHosted, FakePoller.reply(-1))
                .answer(busy, FakePoller.reply(1000));
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 3, DEADLINE, true, MAX_WAIT);

        for (int i = 0; i < 20; i++) {
            assertThat(pick(selector, List.of(failing, notHosted, busy))).isEqualTo(busy);
        }
    }

    @Test
    void randomPollingPollsOnlyPollSizeCandidates() throws Exception {
        List<Replica> candidates = new ArrayList<>();
        FakePoller poller = new FakePoller();
        for (int i = 0; i < 6; i++) {
            Replica r = replica("n" + i, 0);
            candidates.add(r);
            poller.answer(r, FakePoller.reply(10 - i));
        }
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 2, DEADLINE, true, MAX_WAIT);
        Set<Replica> everPolled = new HashSet<>();

        for (int round = 0; round < 100; round++) {
            List<Replica> polled = poller.polled();
            int before = polled.size();

            Replica chosen = pick(selector, candidates);

            List<Replica> thisRound = poller.polled().subList(before, poller.polled().size());
            assertThat(thisRound).hasSize(2).doesNotHaveDuplicates();
            Replica leastLoaded = thisRound.get(0).node().value().compareTo(thisRound.get(1).node().value()) > 0
                    ? thisRound.get(0) : thisRound.get(1); // higher index, lower load
            assertThat(chosen).isEqualTo(leastLoaded);
            everPolled.addAll(thisRound);
        }
        assertThat(everPolled).as("the sample is random").containsExactlyInAnyOrderElementsOf(candidates);
    }

    @Test
    void randomPollingWithOneCandidateDoesNotPoll() throws Exception {
        FakePoller poller = new FakePoller().answer(a, FakePoller.silent());
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 3, DEADLINE, true, MAX_WAIT);

        assertThat(selector.select(SERVICE, 3, List.of(a))).isCompletedWithValue(a);
        assertThat(poller.polled()).isEmpty();
    }

    @Test
    void withoutDiscardingSlowPollsItWaitsForTheSlowReply() throws Exception {
        Replica fastBusy = replica("fast-busy", 0);
        Replica slowIdle = replica("slow-idle", 0);
        Duration slowness = Duration.ofMillis(300);
        FakePoller poller = new FakePoller()
                .answer(fastBusy, FakePoller.reply(50))
                .answer(slowIdle, FakePoller.replyAfter(slowness, 0));
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 2, Duration.ofMillis(10), false, MAX_WAIT);

        long start = System.nanoTime();
        Replica chosen = pick(selector, List.of(fastBusy, slowIdle));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertThat(chosen).isEqualTo(slowIdle);
        assertThat(elapsed).isGreaterThanOrEqualTo(slowness.minusMillis(5)).isLessThan(MAX_WAIT);
    }

    @Test
    void withDiscardingSlowPollsTheSameSlowReplyIsNotAwaited() throws Exception {
        Replica fastBusy = replica("fast-busy", 0);
        Replica slowIdle = replica("slow-idle", 0);
        FakePoller poller = new FakePoller()
                .answer(fastBusy, FakePoller.reply(50))
                .answer(slowIdle, FakePoller.replyAfter(Duration.ofSeconds(3), 0));
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 2, Duration.ofMillis(10), true, MAX_WAIT);

        assertThat(pick(selector, List.of(fastBusy, slowIdle))).isEqualTo(fastBusy);
        assertDiscarded(poller.pollOf(slowIdle));
    }

    @Test
    void withoutDiscardingSlowPollsItStillStopsAtMaxWait() throws Exception {
        Replica answering = replica("answering", 0);
        Replica silent = replica("silent", 0);
        FakePoller poller = new FakePoller()
                .answer(answering, FakePoller.reply(70))
                .answer(silent, FakePoller.silent());
        Duration maxWait = Duration.ofMillis(200);
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 2, Duration.ofMillis(10), false, maxWait);

        long start = System.nanoTime();
        Replica chosen = pick(selector, List.of(answering, silent));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

        assertThat(chosen).isEqualTo(answering);
        assertThat(elapsed).isGreaterThanOrEqualTo(maxWait.minusMillis(5)).isLessThan(Duration.ofSeconds(3));
        assertDiscarded(poller.pollOf(silent));
    }

    @Test
    void pollRoundsAreIndependent() throws Exception {
        // A reply arriving for an older round must not leak into a newer one.
        FakePoller poller = new FakePoller()
                .answer(a, FakePoller.reply(1))
                .answer(b, FakePoller.reply(2));
        ReplicaSelector selector = Selectors.randomPolling(poller, timer, 2, DEADLINE, true, MAX_WAIT);
        assertThat(pick(selector, List.of(a, b))).isEqualTo(a);

        poller.answer(a, FakePoller.reply(9));
        assertThat(pick(selector, List.of(a, b))).isEqualTo(b);
    }

    /** The round cancels its unanswered polls right after it completes (on the completing thread). */
    private static void assertDiscarded(CompletableFuture<Poll.Reply> poll) {
        await().atMost(Duration.ofSeconds(2)).until(poll::isCancelled);
    }

    // ---------------------------------------------------------------- the fake poller

    /** A working in-memory poller: each replica answers as told; records every poll and its future. */
    private static final class FakePoller implements Selectors.Poller {
        private final Map<NodeId, Function<Long, CompletableFuture<Poll.Reply>>> behaviours = new HashMap<>();
        private final List<Replica> polled = new ArrayList<>();
        private final List<String> classes = new ArrayList<>();
        private final Map<NodeId, CompletableFuture<Poll.Reply>> lastPoll = new HashMap<>();
        private long nextPollId;

        static Function<Long, CompletableFuture<Poll.Reply>> reply(int load) {
            return id -> CompletableFuture.completedFuture(new Poll.Reply(id, load, 0));
        }

        static Function<Long, CompletableFuture<Poll.Reply>> reply(int load, int classLoad) {
            return id -> CompletableFuture.completedFuture(new Poll.Reply(id, load, 0, classLoad));
        }

        static Function<Long, CompletableFuture<Poll.Reply>> replyAfter(Duration delay, int load) {
            return id -> {
                CompletableFuture<Poll.Reply> future = new CompletableFuture<>();
                timer.schedule(() -> future.complete(new Poll.Reply(id, load, 0)), delay.toNanos(),
                        TimeUnit.NANOSECONDS);
                return future;
            };
        }

        static Function<Long, CompletableFuture<Poll.Reply>> silent() {
            return id -> new CompletableFuture<>();
        }

        static Function<Long, CompletableFuture<Poll.Reply>> failed() {
            return id -> CompletableFuture.failedFuture(new java.io.IOException("send failed"));
        }

        synchronized FakePoller answer(Replica replica, Function<Long, CompletableFuture<Poll.Reply>> behaviour) {
            behaviours.put(replica.node(), behaviour);
            return this;
        }

        @Override
        public synchronized CompletableFuture<Poll.Reply> poll(Replica replica, String service, int partition,
                String serviceClass) {
            assertThat(service).isEqualTo(SERVICE);
            assertThat(partition).isEqualTo(3);
            polled.add(replica);
            classes.add(serviceClass);
            CompletableFuture<Poll.Reply> future = behaviours.get(replica.node()).apply(++nextPollId);
            lastPoll.put(replica.node(), future);
            return future;
        }

        synchronized List<Replica> polled() {
            return List.copyOf(polled);
        }

        synchronized CompletableFuture<Poll.Reply> pollOf(Replica replica) {
            return lastPoll.get(replica.node());
        }
    }
}
