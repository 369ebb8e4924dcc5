package io.neptune.benchmarks;

import io.neptune.benchmarks.BenchEchoService.Hold;
import io.neptune.benchmarks.BenchEchoService.Ping;
import io.neptune.benchmarks.BenchEchoService.Pong;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.SecurityConfig;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three Neptune nodes in this JVM on the loopback JGroups stack, in a cluster of their own:
 * {@code node-a} hosts nothing and makes the calls; {@code node-b} and {@code node-c} host
 * {@link BenchEchoService} so that each partition has a known replica set:
 *
 * <ul>
 *   <li>{@link #FIXED_PARTITION}: {@code node-b} only, so every policy picks it without polling;
 *   <li>{@link #SHARED_PARTITION}: {@code node-b} and {@code node-c}, so random polling polls both;
 *   <li>{@link #HOLD_PARTITION}: {@code node-c} only, used by {@link #verifyPollingPrefersIdleReplica()}.
 * </ul>
 *
 * <p>Thread-safety: start and close from one thread; {@link #client()} is thread-safe.
 */
final class EchoCluster implements AutoCloseable {
    /** Hosted by {@code node-b} alone. */
    static final int FIXED_PARTITION = 0;
    /** Hosted by {@code node-b} and {@code node-c}. */
    static final int SHARED_PARTITION = 1;
    /** Hosted by {@code node-c} alone. */
    static final int HOLD_PARTITION = 2;
    /** The request every echo benchmark sends; its JSON is 39 bytes. */
    static final Ping PING = new Ping("0123456789abcdefghijklmnopqr");

    private static final Logger logger = LoggerFactory.getLogger(EchoCluster.class);
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Polled calls of 100 that may still reach the loaded replica: a poll that misses the poll
     * deadline on a busy machine falls back to a random pick. Random choice alone sends about 50.
     */
    private static final int MAX_POLLED_TO_LOADED = 20;

    /** NodeConfig's default event loop threads, which the echo benchmarks always ran with. */
    private static final int IO_THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

    private final MiniCluster cluster;
    private final BenchEchoService onC = new BenchEchoService();
    private final NeptuneHandle handle = NeptuneHandle.create();

    private EchoCluster(MiniCluster cluster) {
        this.cluster = cluster;
    }

    /** Starts the three nodes and waits until {@code node-a}'s yellow page lists every replica. */
    static EchoCluster start() {
        return start(MiniCluster.builder());
    }

    /**
     * {@link #start()} with TLS required between the nodes, each with a certificate of its own, all
     * on {@code provider}.
     */
    static EchoCluster startWithTls(SecurityConfig.TlsProvider provider) {
        return start(MiniCluster.builder().tls(provider));
    }

    /**
     * {@link #start()} with every node recording its spans with {@code openTelemetry} (the client's
     * CLIENT spans on {@code node-a}, the SERVER and queue spans where the calls are served).
     */
    static EchoCluster startTraced(OpenTelemetry openTelemetry) {
        return start(MiniCluster.builder(), b -> b.openTelemetry(openTelemetry));
    }

    private static EchoCluster start(MiniCluster.Builder builder) {
        return start(builder, UnaryOperator.identity());
    }

    private static EchoCluster start(MiniCluster.Builder builder, UnaryOperator<NeptuneNode.Builder> eachNode) {
        EchoCluster echo = new EchoCluster(builder.name("bench").defaultMembershipTiming().ioThreads(IO_THREADS)
                .build());
        try {
            echo.cluster.add(echo.cluster.config("node-a"), eachNode);
            echo.cluster.add(echo.cluster.config("node-b"), b -> eachNode.apply(b)
                    .host(new BenchEchoService(), hosting(FIXED_PARTITION, SHARED_PARTITION)));
            echo.cluster.add(echo.cluster.config("node-c"), b -> eachNode.apply(b)
                    .host(echo.onC, hosting(SHARED_PARTITION, HOLD_PARTITION)));
            echo.awaitYellowPage();
            return echo;
        } catch (RuntimeException e) {
            MiniCluster.closeAfter(echo.cluster, e);
            throw e;
        }
    }

    private static HostingConfig hosting(Integer... partitions) {
        return HostingConfig.builder().partitions(partitions).workers(2).build();
    }

    private void awaitYellowPage() {
        NeptuneNode a = cluster.node(0);
        String service = BenchEchoService.NAME;
        MiniCluster.await("node-a's yellow page to list every replica of " + service, STARTUP_TIMEOUT, () ->
                a.client().partitions(service) > 0
                        && a.replicasOf(service, FIXED_PARTITION).size() == 1
                        && a.replicasOf(service, SHARED_PARTITION).size() == 2
                        && a.replicasOf(service, HOLD_PARTITION).size() == 1);
        logger.info("{}: yellow page ready: {}#{} on {}, #{} on {}, #{} on {}", a.node(), service, FIXED_PARTITION,
                a.replicasOf(service, FIXED_PARTITION), SHARED_PARTITION, a.replicasOf(service, SHARED_PARTITION),
                HOLD_PARTITION, a.replicasOf(service, HOLD_PARTITION));
    }

    /** The calling node's client. */
    NeptuneClient client() {
        return cluster.node(0).client();
    }

    /** Sends {@link #PING} from {@code node-a} to {@code partition}'s {@code echo} method. */
    CompletableFuture<Pong> echo(int partition, CallOptions options) {
        return echo(partition, "echo", options);
    }

    /** Sends {@link #PING} from {@code node-a} to {@code partition}'s {@code method} ({@code echo} or {@code echoInline}). */
    CompletableFuture<Pong> echo(int partition, String method, CallOptions options) {
        return client().callAsync(handle, BenchEchoService.NAME, partition, method, AccessMode.READ, PING, Pong.class,
                options);
    }

    /**
     * Opens a stream of {@code burst} from {@code node-a} to {@link #FIXED_PARTITION}'s
     * {@code stream} method (on {@code node-b}); it starts when subscribed.
     */
    Flow.Publisher<byte[]> stream(StreamBurst burst, CallOptions options) {
        return client().openStream(handle, BenchEchoService.NAME, FIXED_PARTITION, "stream", burst, byte[].class,
                options);
    }

    /**
     * Checks that random polling on {@link #SHARED_PARTITION} really polls: while a held call
     * raises {@code node-c}'s load index, (nearly) every polled call must go to {@code node-b},
     * where random choice would send half of them to {@code node-c}.
     *
     * @throws IllegalStateException if more than {@value #MAX_POLLED_TO_LOADED} of 100 polled calls reached
     *     {@code node-c}
     */
    void verifyPollingPrefersIdleReplica() {
        NeptuneHandle handle = NeptuneHandle.create();
        CompletableFuture<Pong> held = client().callAsync(handle, BenchEchoService.NAME, HOLD_PARTITION, "hold",
                AccessMode.READ, new Hold(20_000), Pong.class, CallOptions.timeout(Duration.ofSeconds(30)));
        try {
            MiniCluster.await("the held call to occupy a worker of node-c", STARTUP_TIMEOUT, () -> onC.holding() == 1);
            CallOptions polling = CallOptions.builder().policy(BalancingPolicy.RANDOM_POLLING).build();
            CallOptions random = CallOptions.builder().policy(BalancingPolicy.RANDOM).build();
            int calls = 100;
            int randomToC = callsServedByC(handle, random, calls);
            int polledToC = callsServedByC(handle, polling, calls);
            logger.info("node-a: while node-c holds one call, {} of {} RANDOM calls and {} of {} RANDOM_POLLING calls "
                    + "went to node-c", randomToC, calls, polledToC, calls);
            if (polledToC > MAX_POLLED_TO_LOADED) {
                throw new IllegalStateException("random polling sent " + polledToC + " of " + calls
                        + " calls to the loaded replica node-c (expected: <= " + MAX_POLLED_TO_LOADED + ")");
            }
        } finally {
            onC.release();
            held.join();
        }
    }

    private int callsServedByC(NeptuneHandle handle, CallOptions options, int calls) {
        int toC = 0;
        for (int i = 0; i < calls; i++) {
            Pong pong = client().call(handle, BenchEchoService.NAME, SHARED_PARTITION, "echo", AccessMode.READ,
                    new Ping("check"), Pong.class, options);
            if (pong.node().equals("node-c")) {
                toC++;
            }
        }
        return toC;
    }

    /** Stops every node and deletes the cluster's directory; idempotent. */
    @Override
    public void close() {
        cluster.close();
    }
}
