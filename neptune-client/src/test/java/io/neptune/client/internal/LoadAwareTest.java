package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Poll;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The load-aware selector against hand-made replicas, a fake poller and a virtual clock. */
class LoadAwareTest {
    private static final String SERVICE = "echo";
    private static final String CLASS = ServiceClass.DEFAULT_NAME;
    private static final long MICROS = 1_000;

    private static EventLoopGroup timer;

    private final Replica a = replica("a");
    private final Replica b = replica("b");
    private final Replica c = replica("c");
    private final List<Replica> all = List.of(a, b, c);
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final Map<NodeId, Integer> pollAnswers = new ConcurrentHashMap<>();
    private final List<NodeId> polled = new ArrayList<>();
    private volatile long pollNanos;
    private final LoadAware selector = new LoadAware(this::poll, timer, 3, Duration.ofMillis(200), clock::get);

    @BeforeAll
    static void startTimer() {
        timer = EventLoops.create("load-aware-test", 1);
    }

    @AfterAll
    static void stopTimer() {
        timer.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static Replica replica(String node) {
        int port = 21_000 + Math.floorMod(node.hashCode(), 1000) * 2;
        return new Replica(NodeId.of(node), new InetSocketAddress("127.0.0.1", port),
                new InetSocketAddress("127.0.0.1", port + 1), 0, ReplicaRole.SECONDARY, 0, 0);
    }

    private synchronized CompletableFuture<Poll.Reply> poll(Replica replica, String service, int partition,
            String serviceClass) {
        polled.add(replica.node());
        clock.addAndGet(pollNanos); // each poll takes this long to answer
        Integer load = pollAnswers.get(replica.node());
        return load == null ? new CompletableFuture<>() : CompletableFuture.completedFuture(new Poll.Reply(1, load, 0));
    }

    private synchronized List<NodeId> polled() {
        List<NodeId> copy = List.copyOf(polled);
        polled.clear();
        return copy;
    }

    private Replica pick() throws Exception {
        return selector.select(SERVICE, 0, CLASS, all).get(5, TimeUnit.SECONDS);
    }

    /** A call to {@code replica} that took {@code micros} and came back carrying {@code load}, just now. */
    private void answered(Replica replica, long micros, int load) {
        selector.ended(selector.sent(replica.node(), SERVICE, CLASS), micros * MICROS, load);
    }

    @Test
    void withFreshReportsItPicksTheLeastLoadedWithoutPolling() throws Exception {
        answered(a, 100, 5);
        answered(b, 100, 1);
        answered(c, 100, 3);
        assertThat(pick()).isEqualTo(b);
        assertThat(polled()).isEmpty();
    }

    @Test
    void itPollsOnlyTheReplicasWhoseReportIsStale() throws Exception {
        answered(a, 100, 2);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5)); // every report is now stale
        answered(b, 100, 4); // b fresh again
        pollAnswers.put(a.node(), 0);
        pollAnswers.put(c.node(), 7);
        assertThat(pick()).isEqualTo(a);
        assertThat(polled()).containsExactlyInAnyOrder(a.node(), c.node());
        assertThat(pick()).as("the poll replies are reports too").isEqualTo(a);
        assertThat(polled()).isEmpty();
    }

    @Test
    void itCountsItsOwnCallsInFlightOnTopOfTheReport() throws Exception {
        answered(a, 100, 0);
        answered(b, 100, 0);
        answered(c, 100, 2);
        for (int i = 0; i < 3; i++) {
            selector.sent(a.node(), SERVICE, CLASS); // three calls to a, no answer yet
        }
        selector.sent(b.node(), SERVICE, CLASS);
        assertThat(pick()).isEqualTo(b); // a: 0 + 3, b: 0 + 1, c: 2
        selector.sent(b.node(), SERVICE, CLASS);
        selector.sent(b.node(), SERVICE, CLASS);
        assertThat(pick()).isEqualTo(c); // a: 3, b: 3, c: 2
    }

    @Test
    void unansweredPollsFallBackToWhatIsKnownOrARandomCandidate() throws Exception {
        answered(b, 100, 9);
        Replica chosen = pick(); // a and c never answer a poll: only b is known
        assertThat(chosen).isEqualTo(b);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        assertThat(all).contains(pick()); // nothing answers and nothing is fresh: a random one, within the deadline
    }

    @Test
    void aReadsAnswerReportsTheLoadLeftWithoutTheReadItself() throws Exception {
        ResponseMessage idleAfterRead = ResponseMessage.ok(1, 0, new byte[0]).withLoad(1); // the node counted the read
        assertThat(LoadAware.loadLeft(idleAfterRead, AccessMode.READ)).isZero();
        assertThat(LoadAware.loadLeft(idleAfterRead.withLoad(4), AccessMode.READ)).isEqualTo(3);
        assertThat(LoadAware.loadLeft(ResponseMessage.error(1, Status.METHOD_FAILED, "boom").withLoad(2),
                AccessMode.READ)).as("it ran, and threw").isEqualTo(1);
        assertThat(LoadAware.loadLeft(ResponseMessage.error(1, Status.NOT_HOSTED, "moved").withLoad(2),
                AccessMode.READ)).as("refused before it ran").isEqualTo(2);
        assertThat(LoadAware.loadLeft(idleAfterRead, AccessMode.WRITE)).as("replicated writes are counted out first")
                .isEqualTo(1);
        assertThat(LoadAware.loadLeft(ResponseMessage.ok(1, 0, new byte[0]), AccessMode.READ)).as("no load carried")
                .isEqualTo(-1);
        assertThat(LoadAware.loadLeft(null, AccessMode.READ)).as("no answer").isEqualTo(-1);

        // a served idle, b one queued behind its running call: the idle replica that just answered is the pick
        selector.ended(selector.sent(a.node(), SERVICE, CLASS), 100 * MICROS, LoadAware.loadLeft(idleAfterRead,
                AccessMode.READ));
        selector.ended(selector.sent(b.node(), SERVICE, CLASS), 100 * MICROS, LoadAware.loadLeft(
                idleAfterRead.withLoad(2), AccessMode.READ));
        selector.ended(selector.sent(c.node(), SERVICE, CLASS), 100 * MICROS, LoadAware.loadLeft(
                idleAfterRead.withLoad(2), AccessMode.READ));
        for (int i = 0; i < 20; i++) {
            assertThat(pick()).isEqualTo(a);
        }
    }

    @Test
    void itWeighsEveryReplicaWhenAPollCostsLittleBesideTheResponseTime() throws Exception {
        List<Replica> sixteen = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            sixteen.add(replica("r" + i));
            pollAnswers.put(sixteen.get(i).node(), 2);
        }
        pollNanos = 100 * MICROS; // a poll round of three takes 300 µs here
        selector.ended(selector.sent(sixteen.get(0).node(), "slow", CLASS), 20_000 * MICROS, 2); // 20 ms calls
        selector.ended(selector.sent(sixteen.get(0).node(), "fast", CLASS), 100 * MICROS, 2); // 100 µs calls
        for (String service : List.of("slow", "fast")) {
            clock.addAndGet(TimeUnit.SECONDS.toNanos(5)); // nothing is fresh
            selector.select(service, 0, CLASS, sixteen).get(5, TimeUnit.SECONDS);
            assertThat(polled()).as("no poll round measured yet: poll-size").hasSize(3);
        }
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        selector.select("slow", 0, CLASS, sixteen).get(5, TimeUnit.SECONDS);
        assertThat(polled()).as("20 ms beside 300 µs rounds: every replica").hasSize(16);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        selector.select("fast", 0, CLASS, sixteen).get(5, TimeUnit.SECONDS);
        assertThat(polled()).as("100 µs calls: poll-size").hasSize(3);
    }

    @Test
    void aReportYoungerThanAPollRoundIsFreshHoweverBadlyReportsPredicted() throws Exception {
        pollNanos = 100 * MICROS;
        pollAnswers.put(b.node(), 1);
        pollAnswers.put(c.node(), 1);
        answered(a, 100, 0); // 100 µs calls
        pick(); // polls b and c: a poll round of 200 µs
        assertThat(polled()).containsExactlyInAnyOrder(b.node(), c.node());
        for (int i = 0; i < 20; i++) {
            answered(a, 100, i % 2 == 0 ? 5 : 0); // every report misses: the factor falls to its floor
            answered(b, 100, 1);
            answered(c, 100, 1);
        }
        assertThat(selector.boundNanos(SERVICE)).as("floored at the poll round").isGreaterThanOrEqualTo(200 * MICROS);
        clock.addAndGet(150 * MICROS); // older than 0.05 x 100 µs and than 50 µs, younger than a poll round
        pick();
        assertThat(polled()).isEmpty();
    }

    @Test
    void whenPollsAreCheapAReportOneOffTheEstimateShortensTheBound() throws Exception {
        pollNanos = 10 * MICROS;
        pollAnswers.put(b.node(), 1);
        pollAnswers.put(c.node(), 1);
        answered(a, 1_000, 3); // 1 ms calls
        pick(); // polls b and c: a 20 µs round
        answered(a, 1_000, 3);
        answered(a, 1_000, 3); // predicted exactly: the bound grows
        long grown = selector.boundNanos(SERVICE);
        answered(a, 1_000, 4); // one off
        assertThat(selector.boundNanos(SERVICE)).isLessThan(grown);
    }

    @Test
    void whenAPollCostsAboutTheCallAReportWithinOneStillLengthensTheBound() throws Exception {
        pollNanos = 100 * MICROS;
        pollAnswers.put(b.node(), 1);
        pollAnswers.put(c.node(), 1);
        answered(a, 1_000, 3); // 1 ms calls
        pick(); // polls b and c: a 200 µs round, a fifth of a call
        answered(a, 1_000, 3);
        long before = selector.boundNanos(SERVICE);
        answered(a, 1_000, 4); // one off
        assertThat(selector.boundNanos(SERVICE)).isGreaterThan(before);
    }

    @Test
    void powerOfTwoChoicesPicksTheCandidateWithFewerOwnCallsInFlight() throws Exception {
        ReplicaSelector p2c = selector.powerOfTwoChoices();
        for (int i = 0; i < 4; i++) {
            selector.sent(a.node(), SERVICE, CLASS);
        }
        selector.sent(b.node(), SERVICE, CLASS);
        for (int i = 0; i < 200; i++) {
            List<Replica> two = List.of(a, b);
            assertThat(p2c.select(SERVICE, 0, CLASS, two).get(5, TimeUnit.SECONDS)).isEqualTo(b);
        }
        java.util.Set<Replica> seen = new java.util.HashSet<>();
        for (int i = 0; i < 200; i++) {
            seen.add(p2c.select(SERVICE, 0, CLASS, all).get(5, TimeUnit.SECONDS));
        }
        assertThat(seen).as("a is never the less loaded of a pair").containsExactlyInAnyOrder(b, c);
        assertThat(polled()).isEmpty();
    }

    @Test
    void theBoundGrowsWhileReportsPredictTheNextAndShrinksWhenTheyDoNot() {
        answered(a, 100, 3); // response time 100 µs: bound = 1 x 100 µs
        long initial = selector.boundNanos(SERVICE);
        assertThat(initial).isEqualTo(100 * MICROS);
        for (int i = 0; i < 50; i++) {
            answered(a, 100, 3); // each report matches the estimate
        }
        long grown = selector.boundNanos(SERVICE);
        assertThat(grown).isGreaterThan(50 * initial);
        answered(a, 100, 30);
        answered(a, 100, 3);
        assertThat(selector.boundNanos(SERVICE)).isLessThanOrEqualTo(grown / 4);
        for (int i = 0; i < 400; i++) {
            answered(a, 100, 3);
        }
        assertThat(selector.boundNanos(SERVICE)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(LoadAware.MAX_BOUND_MILLIS));
    }
}
