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
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Inner calls ({@link RequestContext#client()}) between two replicated services on two real nodes,
 * called by a third: an inner call carries the outer call's deadline less the margin and its service
 * class, ends when the outer deadline does, is refused when it could deadlock its own service or
 * stall a log applier, and an inner write that every replica of a replicated write sends runs once.
 */
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

        @Check
        public synchronized boolean check(int partition, long lsn) {
            return applied >= lsn;
        }
    }

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
}
