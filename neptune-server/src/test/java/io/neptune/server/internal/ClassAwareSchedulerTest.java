package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.neptune.core.AccessMode;
import io.neptune.core.ClassStats;
import io.neptune.core.MethodDescriptor;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The node scheduler of Figure 4.5 on a virtual clock: every decision is a function of the state and the time. */
class ClassAwareSchedulerTest {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;
    private static final MethodDescriptor METHOD = method();

    private long now = 1_000 * S; // any origin: only differences count
    private final List<String> drops = new ArrayList<>();
    /** The tasks of {@link #drops}. */
    private final List<Task> unserved = new ArrayList<>();
    /** What {@link #unserved} were answered. */
    private final List<Status> statuses = new ArrayList<>();

    /** a: worth 1, due 2 s after arrival; b: worth 4, due 3 s after arrival. */
    private ClassAwareScheduler twoClasses(SchedulingPolicy policy, double shareA, double shareB) {
        return scheduler(SchedulingConfig.builder().policy(policy)
                .serviceClass(new ServiceClass("a", YieldFunction.throughput(1, Duration.ofSeconds(2)), shareA))
                .serviceClass(new ServiceClass("b", YieldFunction.throughput(4, Duration.ofSeconds(3)), shareB))
                .build());
    }

    private ClassAwareScheduler scheduler(SchedulingConfig config) {
        return scheduler(config, 100);
    }

    private ClassAwareScheduler scheduler(SchedulingConfig config, int capacity) {
        return new ClassAwareScheduler(config, capacity, () -> now, (task, status, reason) -> {
            drops.add(task.request().serviceClass() + ": " + reason);
            unserved.add(task);
            statuses.add(status);
        });
    }

    @Test
    void edfServesTheEarliestDeadlineAndYidTheSmallestDeadlinePerUnitOfYield() throws InterruptedException {
        for (SchedulingPolicy policy : List.of(SchedulingPolicy.EDF, SchedulingPolicy.YID)) {
            ClassAwareScheduler scheduler = twoClasses(policy, 0, 0);
            offer(scheduler, "a", now, 2 * S);
            offer(scheduler, "b", now, 3 * S);
            now += 500 * MS;
            // deadline left: a 1.5 s, b 2.5 s; divided by yield: a 1.5, b 0.625
            assertThat(next(scheduler)).as(policy.name()).isEqualTo(policy == SchedulingPolicy.EDF ? "a" : "b");
        }
    }

    @Test
    void fifoServesInArrivalOrderAcrossClassesAndDropsNothing() throws InterruptedException {
        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.FIFO, 0.5, 0.5);
        offer(scheduler, "b", now, 3 * S);
        offer(scheduler, "a", now + 1, 2 * S);
        offer(scheduler, "b", now + 2, 3 * S);
        now += 10 * S; // every deadline passed
        assertThat(List.of(next(scheduler), next(scheduler), next(scheduler))).containsExactly("b", "a", "b");
        assertThat(drops).isEmpty();
    }

    @Test
    void greedyServesTheMostYieldPerUnitOfExpectedResourceUse() throws InterruptedException {
        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.GREEDY, 0, 0);
        complete(scheduler, "a", 100 * MS); // a costs 0.1 s per yield 1: 0.1
        complete(scheduler, "b", 800 * MS); // b costs 0.8 s per yield 4: 0.2
        offer(scheduler, "b", now, 3 * S);
        offer(scheduler, "a", now, 2 * S);
        assertThat(next(scheduler)).isEqualTo("a");

        ClassAwareScheduler yid = twoClasses(SchedulingPolicy.YID, 0, 0);
        complete(yid, "a", 100 * MS);
        complete(yid, "b", 800 * MS);
        offer(yid, "b", now, 3 * S);
        offer(yid, "a", now, 2 * S);
        assertThat(next(yid)).isEqualTo("b");
    }

    @Test
    void adaptiveRunsYidUntilMoreThanFivePercentOfArrivalsAreDroppedThenGreedyUntilTheWindowForgets() throws InterruptedException {
        ClassAwareScheduler scheduler = scheduler(SchedulingConfig.builder().policy(SchedulingPolicy.ADAPTIVE)
                .serviceClass(new ServiceClass("a", YieldFunction.throughput(1, Duration.ofSeconds(2)), 0))
                .serviceClass(new ServiceClass("b", YieldFunction.throughput(4, Duration.ofSeconds(3)), 0))
                .serviceClass(new ServiceClass("late", YieldFunction.throughput(1, Duration.ofMillis(10)), 0))
                .build());
        complete(scheduler, "a", 100 * MS);
        complete(scheduler, "b", 800 * MS);
        for (int i = 0; i < 92; i++) { // with the 2 above, 94 arrivals that are served...
            complete(scheduler, "a", 100 * MS);
        }
        for (int i = 0; i < 5; i++) { // ...and 5 that are dropped: 5 of 99, just above 5%, as soon as seen
            offer(scheduler, "late", now, 10 * MS);
        }
        now += 20 * MS;
        assertThat(scheduler.overloaded(now)).isFalse();
        assertThat(scheduler.poll(0, TimeUnit.NANOSECONDS)).isNull();
        assertThat(drops).hasSize(5).allMatch(d -> d.startsWith("late: "));
        assertThat(scheduler.overloaded(now)).as("5 of 99 dropped").isTrue();
        for (int i = 0; i < 5; i++) { // 10 of 104: stays above 5% with the two arrivals below
            offer(scheduler, "late", now - 20 * MS, 10 * MS);
        }
        assertThat(scheduler.poll(0, TimeUnit.NANOSECONDS)).isNull();
        offer(scheduler, "b", now, 3 * S);
        offer(scheduler, "a", now, 2 * S);
        assertThat(next(scheduler)).as("Greedy under overload").isEqualTo("a");
        assertThat(next(scheduler)).isEqualTo("b");
        now += 31 * S; // the 30 s window no longer holds the drops
        assertThat(scheduler.overloaded(now)).isFalse();
        offer(scheduler, "a", now, 2 * S);
        offer(scheduler, "b", now, 3 * S);
        assertThat(next(scheduler)).as("YID again").isEqualTo("b");
    }

    @Test
    void aClassBelowItsGuaranteedShareIsServedFirstWhateverThePolicyPrefers() throws InterruptedException {
        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.YID, 0.3, 0);
        complete(scheduler, "b", 900 * MS); // b used 0.9 s, a 0.1 s: a's share 10% < 30%
        complete(scheduler, "a", 100 * MS);
        offer(scheduler, "b", now, 3 * S);
        offer(scheduler, "a", now, 2 * S);
        offer(scheduler, "b", now, 3 * S);
        Task first = scheduler.poll(0, TimeUnit.NANOSECONDS);
        assertThat(first.request().serviceClass()).isEqualTo("a");
        scheduler.completed(first, now, now + 400 * MS, 400 * MS); // a: 0.5 of 1.4 s, 36% >= 30%: YID decides
        offer(scheduler, "a", now, 2 * S);
        assertThat(next(scheduler)).isEqualTo("b");
    }

    @Test
    void aGuaranteeIsChargedTheTimeAClassHoldsAWorkerNotItsCpuTime() throws InterruptedException {
        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.YID, 0.2, 0);
        complete(scheduler, "a", 1 * S, 10 * MS); // waits on I/O: a worker for 1 s, 10 ms of CPU
        complete(scheduler, "b", 1 * S, 1 * S);
        assertThat(share(scheduler, "a")).as("half the workers' time").isCloseTo(0.5, within(1e-9));
        offer(scheduler, "b", now, 3 * S);
        offer(scheduler, "a", now, 2 * S);
        assertThat(next(scheduler)).as("a used more than its 20%%: YID decides").isEqualTo("b");
    }

    @Test
    void aRequestStillRunningCountsAgainstItsClassesGuarantee() throws InterruptedException {
        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.YID, 0.2, 0);
        complete(scheduler, "b", 1 * S, 1 * S);
        offer(scheduler, "a", now, 60 * S);
        assertThat(next(scheduler)).as("a below its share").isEqualTo("a");
        now += 5 * S; // a holds its worker all this time
        offer(scheduler, "b", now, 3 * S);
        offer(scheduler, "a", now, 2 * S);
        assertThat(share(scheduler, "a")).as("5 s running against b's 1 s, 5 s ago")
                .isCloseTo(5 / (5 + Math.pow(0.95, 4)), within(1e-9));
        assertThat(next(scheduler)).as("a used more than its 20%%: YID decides").isEqualTo("b");
    }

    @Test
    void theGuaranteeGoesToTheClassFurthestBelowItsShare() throws InterruptedException {
        ClassAwareScheduler scheduler = scheduler(SchedulingConfig.builder().policy(SchedulingPolicy.EDF)
                .serviceClass(new ServiceClass("a", YieldFunction.throughput(1, Duration.ofSeconds(1)), 0.2))
                .serviceClass(new ServiceClass("b", YieldFunction.throughput(1, Duration.ofSeconds(9)), 0.5))
                .serviceClass(new ServiceClass("c", YieldFunction.throughput(1, Duration.ofSeconds(9)), 0))
                .build());
        complete(scheduler, "c", 1 * S); // a and b used nothing: gaps 0.2 and 0.5
        offer(scheduler, "a", now, 1 * S);
        offer(scheduler, "b", now, 9 * S);
        assertThat(next(scheduler)).isEqualTo("b");
    }

    @Test
    void recentUseDecaysByBetaPerSecond() throws InterruptedException {
        Decaying u = new Decaying(SchedulingConfig.DEFAULT_DECAY);
        u.add(now, 1);
        assertThat(u.at(now + S)).isCloseTo(0.95, within(1e-9));
        assertThat(u.at(now + 10 * S)).isCloseTo(Math.pow(0.95, 10), within(1e-9));
        u.add(now + 2 * S, 1); // equation 4.4.3: u(t) = β^(t - t') u(t') + s(r)
        assertThat(u.at(now + 2 * S)).isCloseTo(0.95 * 0.95 + 1, within(1e-9));

        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.EDF, 0, 0);
        complete(scheduler, "a", 1 * S);
        now += 10 * S;
        complete(scheduler, "b", 1 * S);
        double a = Math.pow(0.95, 10);
        assertThat(share(scheduler, "b")).isCloseTo(1 / (1 + a), within(1e-9));
        assertThat(share(scheduler, "a")).isCloseTo(a / (1 + a), within(1e-9));

        Decaying fast = new Decaying(Math.pow(0.95, 10));
        fast.add(now, 1);
        assertThat(fast.at(now + S / 10)).as("time scaled down by 10: a tenth of a second is a second")
                .isCloseTo(0.95, within(1e-9));
    }

    @Test
    void headsThatCanOnlyFinishAfterTheirDeadlineAreDroppedAndAnswered() throws InterruptedException {
        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.YID, 0, 0);
        complete(scheduler, "a", 600 * MS); // a's requests take 0.6 s
        offer(scheduler, "a", now, 2 * S);
        now += 1_300 * MS; // would finish at 1.9 s: keep
        offer(scheduler, "b", now, 3 * S);
        assertThat(scheduler.size()).isEqualTo(2);
        now += 200 * MS; // would finish at 2.1 s > 2 s: drop
        assertThat(next(scheduler)).isEqualTo("b");
        assertThat(drops).singleElement().asString().startsWith("a: expected to finish 2100 ms after it arrived")
                .contains("after its deadline 2000 ms");
        ClassStats a = stats(scheduler, "a");
        assertThat(a.droppedLowYield()).isEqualTo(1);
        assertThat(a.arrivals()).isEqualTo(2);
        assertThat(a.completed()).isEqualTo(1);
    }

    @Test
    void headsWhoseExpectedYieldIsNearZeroAreDroppedBeforeTheDeadline() throws InterruptedException {
        ClassAwareScheduler scheduler = scheduler(SchedulingConfig.builder().policy(SchedulingPolicy.EDF)
                .serviceClass(ServiceClass.of("r", YieldFunction.resptime(10, Duration.ofSeconds(1)))).build());
        offer(scheduler, "r", now, 1 * S);
        offer(scheduler, "r", now + 995 * MS, 1 * S);
        now += 985 * MS; // the first yields 10 * (1 - 0.985) = 0.15 > 1% of 10: served
        assertThat(next(scheduler)).isEqualTo("r");
        now += 10 * MS; // the first is gone; the second just arrived
        assertThat(scheduler.size()).isEqualTo(1);
        offer(scheduler, "r", now - 992 * MS, 1 * S); // yields 10 * 0.008 = 0.08 <= 0.1 once it is the head
        assertThat(next(scheduler)).isEqualTo("r");
        assertThat(drops).isEmpty();
        assertThat(next(scheduler)).isNull();
        assertThat(drops).singleElement().asString().contains("expected yield 0.0800 of 10");
    }

    @Test
    void aFullQueueRefusesAndCountsTheRefusal() throws InterruptedException {
        ClassAwareScheduler scheduler = new ClassAwareScheduler(SchedulingConfig.builder()
                .policy(SchedulingPolicy.EDF).build(), 2, () -> now, (t, status, r) -> drops.add(r));
        assertThat(scheduler.offer(task(ServiceClass.DEFAULT_NAME, now, S))).isTrue();
        assertThat(scheduler.offer(task(ServiceClass.DEFAULT_NAME, now, S))).isTrue();
        assertThat(scheduler.offer(task(ServiceClass.DEFAULT_NAME, now, S))).isFalse();
        ClassStats stats = stats(scheduler, ServiceClass.DEFAULT_NAME);
        assertThat(stats.arrivals()).isEqualTo(3);
        assertThat(stats.droppedQueueFull()).isEqualTo(1);
        assertThat(stats.queued()).isEqualTo(2);
    }

    @Test
    void aFullQueuePushesOutTheNewestRequestOfTheClassFurthestAboveItsPartSoAFloodLocksNoClassOut()
            throws InterruptedException {
        for (SchedulingPolicy policy : List.of(SchedulingPolicy.EDF, SchedulingPolicy.YID, SchedulingPolicy.GREEDY,
                SchedulingPolicy.ADAPTIVE)) {
            drops.clear();
            unserved.clear();
            statuses.clear();
            ClassAwareScheduler scheduler = scheduler(SchedulingConfig.builder().policy(policy)
                    .serviceClass(ServiceClass.of("a", YieldFunction.throughput(1, Duration.ofSeconds(2))))
                    .serviceClass(ServiceClass.of("b", YieldFunction.throughput(1, Duration.ofSeconds(2)))).build(), 4);
            List<Task> flood = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                flood.add(task("a", now + i, 2 * S));
                assertThat(scheduler.offer(flood.get(i))).isTrue();
            }
            assertThat(scheduler.offer(task("a", now + 4, 2 * S))).as("%s: a holds the whole queue", policy).isFalse();

            assertThat(scheduler.offer(task("b", now + 5, 2 * S))).as("%s: b gets in", policy).isTrue();
            assertThat(unserved).as("the newest of a, whose caller has the most time left to go elsewhere")
                    .containsExactly(flood.get(3));
            assertThat(drops).singleElement().asString().startsWith("a: pushed out of the full queue (4 waiting)")
                    .contains("by a request of class b");
            assertThat(statuses).as("another replica may serve it").containsExactly(Status.OVERLOADED);
            assertThat(scheduler.offer(task("b", now + 6, 2 * S))).as("a 3, b 1: b again").isTrue();
            assertThat(scheduler.offer(task("b", now + 7, 2 * S))).as("a 2, b 2: not further above than b").isFalse();
            assertThat(scheduler.offer(task("a", now + 8, 2 * S))).isFalse();

            ClassStats a = stats(scheduler, "a");
            assertThat(a.queued()).isEqualTo(2);
            assertThat(a.droppedQueueFull()).as("one refused, two pushed out").isEqualTo(4);
            assertThat(a.arrivals()).isEqualTo(6);
            assertThat(stats(scheduler, "b").queued()).isEqualTo(2);
            assertThat(stats(scheduler, "b").droppedQueueFull()).isEqualTo(1);
        }
    }

    @Test
    void aGuaranteedShareOfTheWorkersAlsoReservesThatShareOfTheQueue() throws InterruptedException {
        ClassAwareScheduler scheduler = scheduler(SchedulingConfig.builder().policy(SchedulingPolicy.YID)
                .serviceClass(ServiceClass.of("a", YieldFunction.throughput(1, Duration.ofSeconds(2))))
                .serviceClass(new ServiceClass("b", YieldFunction.throughput(1, Duration.ofSeconds(2)), 0.5))
                .build(), 4);
        for (int i = 0; i < 4; i++) {
            offer(scheduler, "a", now, 2 * S);
        }
        // b's share reserves it 0.5 x 4 = 2 places; the other 2 are split evenly between the two classes
        offer(scheduler, "b", now, 2 * S);
        offer(scheduler, "b", now, 2 * S);
        offer(scheduler, "b", now, 2 * S);
        assertThat(scheduler.offer(task("b", now, 2 * S))).isFalse();
        assertThat(stats(scheduler, "a").queued()).isEqualTo(1);
        assertThat(stats(scheduler, "b").queued()).isEqualTo(3);
    }

    @Test
    void anOfferToAFullQueueFirstAnswersTheHeadsWhoseDeadlinePassed() throws InterruptedException {
        for (SchedulingPolicy policy : List.of(SchedulingPolicy.FIFO, SchedulingPolicy.EDF)) {
            drops.clear();
            statuses.clear();
            ClassAwareScheduler scheduler = scheduler(SchedulingConfig.builder().policy(policy)
                    .serviceClass(ServiceClass.of("a", YieldFunction.throughput(1, Duration.ofSeconds(2)))).build(), 2);
            offer(scheduler, "a", now, 1 * S);
            offer(scheduler, "a", now, 2 * S);
            now += 1_500 * MS; // the first is past its deadline, the second is not
            assertThat(scheduler.offer(task("a", now, 2 * S))).as(policy.name()).isTrue();
            assertThat(drops).as(policy.name()).singleElement().asString()
                    .startsWith("a: deadline passed while queued (waited 1500 ms, deadline 1000 ms); not run");
            assertThat(statuses).containsExactly(Status.DEADLINE_EXCEEDED);
            ClassStats a = stats(scheduler, "a");
            assertThat(a.droppedDeadline()).isEqualTo(1);
            assertThat(a.queued()).isEqualTo(2);
            assertThat(scheduler.size()).isEqualTo(2);
        }
    }

    @Test
    void aClassTheFullQueueWouldRefusePollsAsLoadedAsTheWholeQueue() throws InterruptedException {
        ClassAwareScheduler fifo = scheduler(SchedulingConfig.builder().policy(SchedulingPolicy.FIFO)
                .serviceClass(ServiceClass.of("a", YieldFunction.throughput(1, Duration.ofSeconds(2))))
                .serviceClass(ServiceClass.of("b", YieldFunction.throughput(1, Duration.ofSeconds(2)))).build(), 2);
        offer(fifo, "a", now, 2 * S);
        offer(fifo, "a", now, 2 * S);
        assertThat(fifo.offer(task("b", now, 2 * S))).as("FIFO, the baseline, admits in arrival order only").isFalse();
        assertThat(fifo.load("b")).as("b would be refused: clients should go elsewhere").isEqualTo(2);
        assertThat(next(fifo)).isEqualTo("a");
        assertThat(fifo.load("b")).as("room again").isZero();

        ClassAwareScheduler yid = scheduler(SchedulingConfig.builder().policy(SchedulingPolicy.YID)
                .serviceClass(ServiceClass.of("a", YieldFunction.throughput(1, Duration.ofSeconds(2))))
                .serviceClass(ServiceClass.of("b", YieldFunction.throughput(1, Duration.ofSeconds(2)))).build(), 4);
        offer(yid, "a", now, 2 * S);
        offer(yid, "a", now, 2 * S);
        offer(yid, "a", now, 2 * S);
        offer(yid, "b", now, 2 * S);
        assertThat(next(yid)).isEqualTo("a");
        offer(yid, "a", now, 2 * S); // a: 3 waiting, 1 running; b: 1 waiting
        assertThat(yid.load("a")).as("a would be refused: the whole queue and what runs").isEqualTo(5);
        assertThat(yid.load("b")).as("b would push out an a").isEqualTo(1);
    }

    @Test
    void realizedYieldFollowsTheYieldFunctionAndLossPercentComparesItWithTheOffered() throws InterruptedException {
        ClassAwareScheduler scheduler = scheduler(SchedulingConfig.builder().policy(SchedulingPolicy.EDF)
                .serviceClass(ServiceClass.of("h", YieldFunction.hybrid(4, Duration.ofSeconds(1), 2,
                        Duration.ofSeconds(2)))).build());
        Task fast = task("h", now, 2 * S);
        Task slow = task("h", now, 2 * S);
        Task late = task("h", now, 2 * S);
        scheduler.offer(fast);
        scheduler.offer(slow);
        scheduler.offer(late);
        scheduler.poll(0, TimeUnit.NANOSECONDS);
        scheduler.poll(0, TimeUnit.NANOSECONDS);
        scheduler.poll(0, TimeUnit.NANOSECONDS);
        scheduler.completed(fast, now, now + 500 * MS, MS); // full yield 4
        scheduler.completed(slow, now, now + 1_500 * MS, MS); // halfway from 4 to 2: 3
        scheduler.completed(late, now, now + 2_500 * MS, MS); // after D: 0
        ClassStats h = stats(scheduler, "h");
        assertThat(h.offeredYield()).isEqualTo(12);
        assertThat(h.realizedYield()).isCloseTo(7, within(1e-9));
        assertThat(h.lossPercent()).isCloseTo(100.0 * 5 / 12, within(1e-9));
        assertThat(h.completed()).isEqualTo(3);
        assertThat(scheduler.load("h")).isZero();
    }

    @Test
    void loadCountsAClassesQueuedAndRunningRequests() throws InterruptedException {
        ClassAwareScheduler scheduler = twoClasses(SchedulingPolicy.EDF, 0, 0);
        offer(scheduler, "a", now, 2 * S);
        offer(scheduler, "a", now, 2 * S);
        offer(scheduler, "b", now, 3 * S);
        assertThat(next(scheduler)).isEqualTo("a");
        assertThat(scheduler.load("a")).isEqualTo(2);
        assertThat(scheduler.load("b")).isEqualTo(1);
        assertThat(scheduler.load("nope")).isZero();
    }

    // ---- helpers

    private void offer(ClassAwareScheduler scheduler, String serviceClass, long arrival, long deadlineAfter) {
        assertThat(scheduler.offer(task(serviceClass, arrival, deadlineAfter))).isTrue();
    }

    private static Task task(String serviceClass, long arrival, long deadlineAfter) {
        RequestMessage request = new RequestMessage(1, "svc", 0, "m", AccessMode.READ, 60_000, 0, RequestId.NONE,
                new byte[0], serviceClass);
        return new Task(request, METHOD, arrival, arrival + deadlineAfter, response -> {});
    }

    private @Nullable String next(ClassAwareScheduler scheduler) throws InterruptedException {
        Task task = scheduler.poll(0, TimeUnit.NANOSECONDS);
        return task == null ? null : task.request().serviceClass();
    }

    /**
     * Runs one request of {@code serviceClass} through an empty scheduler: it used {@code resource} of
     * worker time and took as long.
     */
    private void complete(ClassAwareScheduler scheduler, String serviceClass, long resource)
            throws InterruptedException {
        complete(scheduler, serviceClass, resource, resource);
    }

    /** Runs one request of {@code serviceClass} through an empty scheduler: it held a worker for {@code held}. */
    private void complete(ClassAwareScheduler scheduler, String serviceClass, long held, long resource)
            throws InterruptedException {
        assertThat(scheduler.size()).isZero();
        Task task = task(serviceClass, now, 60 * S);
        scheduler.offer(task);
        assertThat(scheduler.poll(0, TimeUnit.NANOSECONDS)).isSameAs(task);
        scheduler.completed(task, now, now + held, resource);
    }

    private static ClassStats stats(ClassAwareScheduler scheduler, String serviceClass) {
        return scheduler.stats().stream().filter(s -> s.serviceClass().equals(serviceClass)).findFirst()
                .orElseThrow();
    }

    private static double share(ClassAwareScheduler scheduler, String serviceClass) {
        return stats(scheduler, serviceClass).share();
    }

    private static MethodDescriptor method() {
        try {
            return new MethodDescriptor("m", AccessMode.READ, String.class, String.class,
                    String.class.getMethod("length"));
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }
}
