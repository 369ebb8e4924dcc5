package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.NeptuneException;
import io.neptune.core.NeptuneService;
import io.neptune.core.NodeId;
import io.neptune.core.PartitionKey;
import io.neptune.core.Read;
import io.neptune.core.RemoteMethodException;
import io.neptune.core.ReplicaRole;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceClass;
import io.neptune.core.Write;
import io.neptune.core.YieldFunction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Inner calls ({@link RequestContext#client()}) between two replicated services on two real nodes,
 * called by a third: an inner call carries the outer call's deadline less the margin and its service
 * class, ends when the outer deadline does, is refused when it could deadlock its own service or
 * stall a log applier, and an inner write that every replica of a replicated write sends runs once.
 */
@Tag("alone") // runs by itself (failsafe's first pass): it asserts the time an inner call has left
class InnerCallIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** The back tier: a replicated ledger, and a read that says what it saw of its call. */
    @NeptuneService(name = "ledger", partitions = 1, consistency = ConsistencyLevel.LEVEL_2)
    public static final class Ledger {
        /** Adds an entry. */
        public record Add(String entry) {}

        /** The entries so far. */
        public record Entries(List<String> entries) {}

        /** Waits {@code sleepMillis} (emulating slow work), then answers. */
        public record Probe(long sleepMillis) {}

        /** What the call looked like from here: the time it had left, its class, the serving node. */
        public record Seen(long timeLeftMillis, String serviceClass, String node) {}

        private final List<String> entries = new ArrayList<>();
        private long applied;

        @Write
        public synchronized Entries add(RequestContext context, Add request) {
            entries.add(request.entry());
            applied = context.lsn();
            return new Entries(List.copyOf(entries));
        }

        @Read
        public synchronized Entries entries(RequestContext context, Probe request) {
            return new Entries(List.copyOf(entries));
        }

        @Read
        public Seen seen(RequestContext context, Probe request) throws InterruptedException {
            long left = context.timeLeft().map(Duration::toMillis).orElse(-1L);
            Thread.sleep(request.sleepMillis());
            return new Seen(left, context.serviceClass(), context.node().value());
        }

        /** Holds its worker until {@link #RELEASED} or {@code sleepMillis}, whichever comes first. */
        @Read
        public Seen hold(RequestContext context, Probe request) throws InterruptedException {
            HOLDING.incrementAndGet();
            try {
                RELEASED.await(request.sleepMillis(), TimeUnit.MILLISECONDS);
            } finally {
                HOLDING.decrementAndGet();
            }
            return new Seen(0, context.serviceClass(), context.node().value());
        }

        @Check
        public synchronized boolean check(int partition, long lsn) {
            return applied >= lsn;
        }
    }

    /** Ledger holds in progress, on any replica. */
    private static final AtomicInteger HOLDING = new AtomicInteger();
    /** Ends every ledger hold; counted down when the class's tests end. */
    private static final CountDownLatch RELEASED = new CountDownLatch(1);
    /** How each inner call that a dropped call was waiting for ended, as the front saw it. */
    private static final Queue<String> INNER_ENDINGS = new ConcurrentLinkedQueue<>();

    /** The typed view of the ledger's read. */
    public interface LedgerApi {
        @Read
        Ledger.Seen seen(@PartitionKey int partition, Ledger.Probe probe);
    }

    /** The front tier: serves its calls by calling the ledger, or itself. */
    @NeptuneService(name = "front", partitions = 1, consistency = ConsistencyLevel.LEVEL_2)
    public static final class Front {
        /** What the front's read saw: its own time left before the inner call, and the inner answer or failure. */
        public record Asked(long leftBeforeMillis, Ledger.@Nullable Seen seen, String failure, long tookMillis) {}

        /** The inner writes this replica sent, by the LSN of the write that sent them. */
        final List<CompletableFuture<Ledger.Entries>> sent = new ArrayList<>();
        private long applied;

        @Read
        public Asked ask(RequestContext context, Ledger.Probe probe) {
            long leftBefore = context.timeLeft().orElseThrow().toMillis();
            long start = System.nanoTime();
            try {
                Ledger.Seen seen = context.client().proxy(LedgerApi.class, "ledger").seen(0, probe);
                return new Asked(leftBefore, seen, "", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } catch (DeadlineExceededException e) {
                return new Asked(leftBefore, null, e.getClass().getSimpleName(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
        }

        /** Adds {@code add} to the ledger with a blocking inner write; answers the ledger's entries. */
        @Read
        public Ledger.Entries addToLedger(RequestContext context, Ledger.Add add) {
            return context.client().call("ledger", 0, "add", AccessMode.WRITE, add, Ledger.Entries.class);
        }

        /** Waits for a ledger hold (a blocking inner call); says in {@link #INNER_ENDINGS} how it ended. */
        @Read
        public Ledger.Seen waitForLedger(RequestContext context, Ledger.Probe probe) {
            long start = System.nanoTime();
            try {
                return context.client().call("ledger", 0, "hold", AccessMode.READ, probe, Ledger.Seen.class);
            } catch (NeptuneException e) {
                INNER_ENDINGS.add(ended(e, start));
                throw e;
            }
        }

        /** A stream whose one item is a ledger hold's answer (an async inner call); see {@link #waitForLedger}. */
        @Read
        public Flow.Publisher<Ledger.Seen> streamFromLedger(RequestContext context, Ledger.Probe probe) {
            return subscriber -> {
                SubmissionPublisher<Ledger.Seen> items = new SubmissionPublisher<>(Runnable::run, 1);
                items.subscribe(subscriber);
                long start = System.nanoTime();
                context.client().callAsync("ledger", 0, "hold", AccessMode.READ, probe, Ledger.Seen.class)
                        .whenComplete((seen, failure) -> {
                            if (failure != null) {
                                INNER_ENDINGS.add(ended(failure, start));
                                items.closeExceptionally(failure);
                            } else {
                                items.submit(seen);
                                items.close();
                            }
                        });
            };
        }

        private static String ended(Throwable failure, long start) {
            return failure + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms";
        }

        @Read
        public String hello(RequestContext context, Ledger.Probe probe) {
            return "hello from " + context.node();
        }

        @Read
        public String callItself(RequestContext context, Ledger.Probe probe) {
            return context.client().call("front", 0, "hello", AccessMode.READ, probe, String.class);
        }

        @Read(reentrant = true)
        public String callItselfReentrant(RequestContext context, Ledger.Probe probe) {
            return context.client().call("front", 0, "hello", AccessMode.READ, probe, String.class);
        }

        @Read
        public String callItselfAsync(RequestContext context, Ledger.Probe probe) throws Exception {
            return context.client().callAsync("front", 0, "hello", AccessMode.READ, probe, String.class)
                    .get(10, TimeUnit.SECONDS);
        }

        /** Records an entry in the ledger from every replica, fire and forget; answers the write's LSN. */
        @Write
        public long record(RequestContext context, Ledger.Probe probe) {
            CompletableFuture<Ledger.Entries> inner = context.client().callAsync("ledger", 0, "add", AccessMode.WRITE,
                    new Ledger.Add("front#" + context.lsn()), Ledger.Entries.class);
            synchronized (this) {
                sent.add(inner);
                applied = context.lsn();
            }
            return context.lsn();
        }

        /** Tries a blocking inner call while applying a replicated write; answers why it was refused. */
        @Write
        public String recordBlocking(RequestContext context, Ledger.Probe probe) {
            String answer;
            try {
                context.client().call("ledger", 0, "entries", AccessMode.READ, probe, Ledger.Entries.class);
                answer = "called";
            } catch (IllegalStateException e) {
                answer = e.getMessage();
            }
            synchronized (this) {
                applied = context.lsn();
            }
            return answer;
        }

        synchronized List<CompletableFuture<Ledger.Entries>> sent() {
            return List.copyOf(sent);
        }

        @Check
        public synchronized boolean check(int partition, long lsn) {
            return applied >= lsn;
        }
    }

    private static MiniCluster cluster;
    private static NeptuneClient client;
    private static final List<Front> FRONTS = new ArrayList<>();
    private static final List<Ledger> LEDGERS = new ArrayList<>();

    @BeforeAll
    static void startTwoNodesAndAnObserver() {
        cluster = MiniCluster.start(0, b -> b);
        try {
            for (int i = 1; i <= 2; i++) {
                Front front = new Front();
                FRONTS.add(front);
                Ledger ledger = new Ledger();
                LEDGERS.add(ledger);
                HostingConfig hosting = HostingConfig.builder().replicas(2).priority(3 - i).workers(4).build();
                cluster.add(cluster.config("node-" + i, ClientConfig.defaults()).toBuilder().scheduling(gold()).build(),
                        b -> b.host(front, hosting).host(ledger, hosting));
            }
            NeptuneNode observer = cluster.add(cluster.config("observer", ClientConfig.defaults()).toBuilder()
                    .scheduling(gold()).build(), b -> b);
            client = observer.client();
            for (String service : List.of("front", "ledger")) {
                await().atMost(WAIT).until(() -> observer.replicaRoles(service, 0).get(new NodeId("node-1"))
                        == ReplicaRole.PRIMARY && observer.replicaRoles(service, 0).get(new NodeId("node-2"))
                        == ReplicaRole.SECONDARY);
            }
        } catch (RuntimeException | Error e) {
            try {
                cluster.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    @AfterAll
    static void stop() {
        RELEASED.countDown();
        if (cluster != null) {
            cluster.close();
        }
    }

    private static SchedulingConfig gold() {
        return SchedulingConfig.builder().policy(SchedulingPolicy.YID)
                .serviceClass(new ServiceClass("gold", YieldFunction.throughput(1, Duration.ofSeconds(60)), 0))
                .build();
    }

    @Test
    void anInnerCallHasTheOuterDeadlineLessTheMarginAndItsServiceClass() {
        Front.Asked asked = client.call(NeptuneHandle.create(), "front", 0, "ask", AccessMode.READ,
                new Ledger.Probe(0), Front.Asked.class,
                CallOptions.builder().timeout(Duration.ofSeconds(5)).serviceClass("gold").build());

        assertThat(asked.failure()).isEmpty();
        assertThat(asked.leftBeforeMillis()).as("the front's own time left").isBetween(3_000L, 5_000L);
        assertThat(asked.seen().timeLeftMillis()).as("the ledger's time left, %s", asked)
                .isBetween(asked.leftBeforeMillis() - 3_000, asked.leftBeforeMillis() - 100);
        assertThat(asked.seen().serviceClass()).isEqualTo("gold");
    }

    @Test
    void anInnerCallEndsWhenTheOuterDeadlineWouldSoTheOuterMethodCanStillAnswer() {
        long start = System.nanoTime();
        Front.Asked asked = client.call(NeptuneHandle.create(), "front", 0, "ask", AccessMode.READ,
                new Ledger.Probe(4_000), Front.Asked.class, CallOptions.timeout(Duration.ofSeconds(2)));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(asked.failure()).as("%s", asked).isEqualTo("DeadlineExceededException");
        assertThat(asked.tookMillis()).as("the inner call's wait").isLessThan(asked.leftBeforeMillis());
        assertThat(tookMillis).as("the outer call, answered by the front").isLessThan(2_000);
    }

    @Test
    void aBlockingInnerCallToItsOwnServiceIsRefusedUnlessTheMethodIsReentrant() {
        NeptuneHandle handle = NeptuneHandle.create();
        Ledger.Probe probe = new Ledger.Probe(0);

        assertThatThrownBy(() -> client.call(handle, "front", 0, "callItself", AccessMode.READ, probe, String.class))
                .isInstanceOf(RemoteMethodException.class).hasMessageContaining("NEP-CALL-001")
                .hasMessageContaining("front.callItself made a blocking inner call to its own service 'front'");
        assertThat(client.call(handle, "front", 0, "callItselfReentrant", AccessMode.READ, probe, String.class))
                .startsWith("hello from node-");
        assertThat(client.call(handle, "front", 0, "callItselfAsync", AccessMode.READ, probe, String.class))
                .startsWith("hello from node-");
    }

    @Test
    void aReplicatedWriteMayNotWaitForAnInnerCallAsItAppliesItsLog() {
        String answer = client.call(NeptuneHandle.create(), "front", 0, "recordBlocking", AccessMode.WRITE,
                new Ledger.Probe(0), String.class);

        assertThat(answer).startsWith("NEP-CALL-002 front.recordBlocking made a blocking inner call to ledger while"
                + " applying a replicated write");
    }

    @Test
    void anInnerWriteThatEveryReplicaOfAReplicatedWriteSendsRunsOnce() throws Exception {
        NeptuneHandle handle = NeptuneHandle.create();
        long lsn = client.call(handle, "front", 0, "record", AccessMode.WRITE, new Ledger.Probe(0), Long.class);

        // each replica of the front applied the write and sent the ledger its inner write, with one derived id
        List<CompletableFuture<Ledger.Entries>> sent = new ArrayList<>();
        for (Front front : FRONTS) {
            await().atMost(WAIT).until(() -> front.sent().size() == 1);
            sent.add(front.sent().get(0));
        }
        for (CompletableFuture<Ledger.Entries> inner : sent) {
            assertThat(inner.get(30, TimeUnit.SECONDS).entries()).as("the answer each replica got")
                    .containsOnlyOnce("front#" + lsn);
        }
        // both were answered after they committed, so the ledger's primary (node-1) applied whatever ran
        assertThat(LEDGERS.get(0).entries(null, new Ledger.Probe(0)).entries()).as("the ledger's primary")
                .containsOnlyOnce("front#" + lsn);
    }

    @Test
    void aCallWhoseCallerClosedItsConnectionEndsTheInnerCallItWaitsFor() {
        NeptuneNode node = cluster.nodes().get(0);
        String seed = node.requestAddress().getHostString() + ":" + node.requestAddress().getPort();
        int holding = HOLDING.get();
        INNER_ENDINGS.clear();
        try (NeptuneClient outside = NeptuneClient.connect(ClientConfig.builder().seeds(seed).build())) {
            outside.callAsync(NeptuneHandle.create(), "front", 0, "waitForLedger", AccessMode.READ,
                    new Ledger.Probe(60_000), Ledger.Seen.class, CallOptions.timeout(Duration.ofSeconds(60)));
            await().atMost(WAIT).until(() -> HOLDING.get() > holding);
        }   // its connections close with it, while the front still waits for the ledger

        await().atMost(WAIT).until(() -> !INNER_ENDINGS.isEmpty());
        assertThat(INNER_ENDINGS.peek()).as("how the front's inner call ended")
                .contains("ledger#0.hold: the call it is part of, front.waitForLedger, was dropped: its connection closed");
        assertThat(tookMillis(INNER_ENDINGS.peek())).as("the inner call's wait, of a hold of 60 s").isLessThan(30_000);
    }

    @Test
    void aStreamWhoseCallerCancelsItEndsTheInnerCallItWaitsFor() {
        int holding = HOLDING.get();
        INNER_ENDINGS.clear();
        Flow.Publisher<Ledger.Seen> stream = client.openStream(NeptuneHandle.create(), "front", 0, "streamFromLedger",
                new Ledger.Probe(60_000), Ledger.Seen.class, CallOptions.timeout(Duration.ofSeconds(60)));
        AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        stream.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription.set(s);
                s.request(1);
            }

            @Override
            public void onNext(Ledger.Seen item) {}

            @Override
            public void onError(Throwable failure) {}

            @Override
            public void onComplete() {}
        });
        await().atMost(WAIT).until(() -> HOLDING.get() > holding);

        subscription.get().cancel();

        await().atMost(WAIT).until(() -> !INNER_ENDINGS.isEmpty());
        assertThat(INNER_ENDINGS.peek()).as("how the front's inner call ended")
                .contains("ledger#0.hold: the call it is part of, front.streamFromLedger, was dropped: the client"
                        + " cancelled the stream");
        assertThat(tookMillis(INNER_ENDINGS.peek())).as("the inner call's wait, of a hold of 60 s").isLessThan(30_000);
    }

    /** The milliseconds in an {@link #INNER_ENDINGS} entry. */
    private static long tookMillis(String ending) {
        return Long.parseLong(ending.replaceAll(".* after (\\d+) ms$", "$1"));
    }
}
