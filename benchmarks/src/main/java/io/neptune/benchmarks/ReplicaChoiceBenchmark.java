package io.neptune.benchmarks;

import io.neptune.client.ClientConfig;
import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.ReplicaSelector;
import io.neptune.client.internal.Selectors;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Announcement.HostedService;
import io.neptune.core.internal.membership.Announcement.ReplicaState;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.Poll;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a call does to pick its replica before it sends anything: the yellow page lookups of
 * {@code Call.attempt} (the service's partition count, the partition's replicas, the service's
 * consistency level) and the policy's {@link ReplicaSelector#select}.
 *
 * <p>The yellow page holds {@code nodes} announcements of one level-1 service with
 * {@value #PARTITIONS} partitions, each hosted by every node, as in the load-balancing experiment
 * where any server may serve any request: a partition has {@code nodes} candidates. Each operation
 * takes the next partition in turn. Policies:
 *
 * <ul>
 *   <li>{@code lookup}: the lookups alone;
 *   <li>{@code random}, {@code round-robin}: {@link Selectors#random()}, {@link Selectors#roundRobin()};
 *   <li>{@code random-polling}: {@link Selectors#randomPolling} with the client's default poll size
 *       and deadline, whose poller answers at once with each node's announced load: the sample, the
 *       poll round, its deadline timer on a real event loop (scheduled and cancelled), and the
 *       least-loaded choice, without the UDP round trip ({@link EchoRoundTripBenchmark} measures that).
 * </ul>
 *
 * <p>Not included: {@code Call}'s filter of eligible replicas (one pass over the candidates, which
 * the benchmark cannot reach: {@code Call} is package-private) and its per-call deadline timer.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
public class ReplicaChoiceBenchmark {
    /** Partitions of the announced service. */
    static final int PARTITIONS = 8;
    /** The announced service. */
    static final String SERVICE = "bench-kv";

    /** A yellow page of {@code nodes} nodes and the policy under test. */
    @State(Scope.Thread)
    public static class Choice {
        /** Nodes in the yellow page, each hosting every partition. */
        @Param({"16", "64"})
        public int nodes;

        /** {@code lookup}, {@code random}, {@code round-robin} or {@code random-polling}. */
        @Param({"lookup", "random", "round-robin", "random-polling"})
        public String policy;

        YellowPage yellowPage;
        @Nullable ReplicaSelector selector;
        EventLoopGroup timer;
        int next;

        /** Fills the yellow page and builds the selector. */
        @Setup(Level.Trial)
        public void setUp() {
            yellowPage = new YellowPage(NodeId.of("bench-client"), Duration.ofHours(1), System::nanoTime);
            for (int i = 0; i < nodes; i++) {
                yellowPage.update(announcement(i));
            }
            timer = EventLoops.create("bench-choice", 1);
            ClientConfig config = ClientConfig.defaults();
            selector = switch (policy) {
                case "lookup" -> null;
                case "random" -> Selectors.random();
                case "round-robin" -> Selectors.roundRobin();
                case "random-polling" -> Selectors.randomPolling(
                        (replica, service, partition, serviceClass) -> CompletableFuture.completedFuture(
                                new Poll.Reply(0, replica.load(), replica.version())),
                        timer, config.pollSize(), config.pollDeadline(), config.discardSlowPolls(), config.timeout());
                default -> throw new IllegalArgumentException("policy: " + policy
                        + " (expected: lookup, random, round-robin or random-polling)");
            };
        }

        /** Stops the timer's event loop. */
        @TearDown(Level.Trial)
        public void tearDown() {
            timer.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Node {@code i} hosting every partition, with a load from 0 to 6 so that polling has a choice to make. */
    static Announcement announcement(int i) {
        List<ReplicaState> replicas = new ArrayList<>(PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            replicas.add(new ReplicaState(p, 0, ReplicaRole.SECONDARY, 100));
        }
        int load = i * 5 % 7;
        return new Announcement("node-" + i, "127.0.0.1", 20_000 + i, 30_000 + i, 1000 + i, 1, 1, load,
                List.of(new HostedService(SERVICE, PARTITIONS, load, replicas)));
    }

    /** The lookups and the decision of one call to the next partition; returns the chosen replica. */
    @Benchmark
    public Object choose(Choice choice) {
        int partition = choice.next++ & (PARTITIONS - 1);
        OptionalInt partitions = choice.yellowPage.partitions(SERVICE);
        if (partitions.isEmpty() || partition >= partitions.getAsInt()) {
            throw new IllegalStateException("yellow page lost " + SERVICE);
        }
        List<Replica> candidates = choice.yellowPage.replicas(SERVICE, partition);
        Optional<ConsistencyLevel> level = choice.yellowPage.consistency(SERVICE);
        ReplicaSelector selector = choice.selector;
        if (selector == null) {
            return level.isPresent() ? candidates : List.of();
        }
        return selector.select(SERVICE, partition, candidates).join();
    }
}
