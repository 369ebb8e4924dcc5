package io.neptune.benchmarks;

import io.neptune.benchmarks.BenchEchoService.Pong;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One echo round trip, one call at a time, through Neptune and through raw Netty floors, all on
 * loopback in one JVM (issue 2; results in {@code docs/PERFORMANCE.md}).
 *
 * <ul>
 *   <li>{@link #neptuneFixedNode}: a Neptune call to a partition with a single replica, so no
 *       policy polls: client codec, TCP, server queue and worker, JSON both ways;
 *   <li>{@link #neptuneRandomTwoReplicas}: the same call to a partition with two replicas, picked
 *       at random without polling (the control for the next one);
 *   <li>{@link #neptuneRandomPolling}: the same call with {@link BalancingPolicy#RANDOM_POLLING}
 *       over the two replicas: both are polled over UDP before the call is sent;
 *   <li>{@link #rawNettyPingPong}: a length-prefixed echo of {@value #PAYLOAD_BYTES} bytes over a
 *       plain Netty TCP connection, the floor for a Neptune call;
 *   <li>{@link #udpPollRoundTrip}: a {@value #POLL_BYTES}-byte datagram echoed by a plain Netty UDP
 *       server, the floor for one load poll.
 * </ul>
 *
 * <p>Each benchmark forks its own JVM, so a Neptune cluster never shares the CPU with the floors.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
public class EchoRoundTripBenchmark {
    /** Size of the echo payload: about the JSON of {@link EchoCluster#PING}. */
    static final int PAYLOAD_BYTES = 40;
    /** Size of a load poll datagram for a 10-character service name. */
    static final int POLL_BYTES = 28;

    /** The three-node Neptune cluster and the calls' fixed arguments. */
    @State(Scope.Benchmark)
    public static class Neptune {
        EchoCluster cluster;
        final CallOptions random = CallOptions.builder().policy(BalancingPolicy.RANDOM).build();
        final CallOptions polling = CallOptions.builder().policy(BalancingPolicy.RANDOM_POLLING).build();

        /** Starts the cluster, waits for its yellow page, and checks that polling polls. */
        @Setup(Level.Trial)
        public void start() {
            cluster = EchoCluster.start();
            cluster.verifyPollingPrefersIdleReplica();
        }

        Pong echo(int partition, CallOptions options) {
            return cluster.echo(partition, options).join();
        }

        /** Stops the cluster. */
        @TearDown(Level.Trial)
        public void stop() {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /** A raw Netty TCP echo server and client. */
    @State(Scope.Benchmark)
    public static class Tcp {
        NettyTcpEcho echo;

        /** Binds the server and connects the client. */
        @Setup(Level.Trial)
        public void start() {
            echo = new NettyTcpEcho(payload(PAYLOAD_BYTES));
        }

        /** Closes both ends. */
        @TearDown(Level.Trial)
        public void stop() {
            if (echo != null) {
                echo.close();
            }
        }
    }

    /** A raw Netty UDP echo server and client. */
    @State(Scope.Benchmark)
    public static class Udp {
        NettyUdpEcho echo;

        /** Binds both sockets. */
        @Setup(Level.Trial)
        public void start() {
            echo = new NettyUdpEcho(payload(POLL_BYTES));
        }

        /** Closes both sockets. */
        @TearDown(Level.Trial)
        public void stop() {
            if (echo != null) {
                echo.close();
            }
        }
    }

    static byte[] payload(int size) {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, "x".getBytes(StandardCharsets.US_ASCII)[0]);
        return bytes;
    }

    /** Neptune call to the single replica of a partition: no polling under any policy. */
    @Benchmark
    public Pong neptuneFixedNode(Neptune neptune) {
        return neptune.echo(EchoCluster.FIXED_PARTITION, neptune.random);
    }

    /** Neptune call to one of two replicas chosen at random, without polling. */
    @Benchmark
    public Pong neptuneRandomTwoReplicas(Neptune neptune) {
        return neptune.echo(EchoCluster.SHARED_PARTITION, neptune.random);
    }

    /** Neptune call to the less loaded of two replicas after polling both over UDP. */
    @Benchmark
    public Pong neptuneRandomPolling(Neptune neptune) {
        return neptune.echo(EchoCluster.SHARED_PARTITION, neptune.polling);
    }

    /** Raw Netty TCP echo of a length-prefixed frame. */
    @Benchmark
    public int rawNettyPingPong(Tcp tcp) {
        return tcp.echo.roundTrip();
    }

    /** Raw Netty UDP echo of one poll-sized datagram. */
    @Benchmark
    public int udpPollRoundTrip(Udp udp) {
        return udp.echo.roundTrip();
    }
}
