package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.LoadTracker;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneException;
import io.neptune.core.NoMajorityException;
import io.neptune.core.NodeId;
import io.neptune.core.NotPrimaryException;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.Frames;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Appended;
import io.neptune.server.JournalTestService.ReadAll;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a client reports when a write fails (issue 9, hole 7): a write that may have run ends in
 * {@link OutcomeUnknownException}, never in an error that says it did not run, and retrying it with
 * its request id runs it at most once. The client's yellow page is built by hand, so a scripted
 * stand-in replica (a real Netty server speaking the wire protocol) can play the primary: one that
 * runs the write at the real primary and then drops the connection, one that never answers, one that
 * answers IN_DOUBT or NO_MAJORITY.
 */
@Tag("alone") // runs by itself (failsafe's first pass): it asserts a redirected write takes no wait for the yellow page
class WriteOutcomeIT {
    private static final String SERVICE = "journal";
    private static final int PARTITION = 0;
    private static final Duration DEADLINE = Duration.ofMillis(1500);

    private static MiniCluster cluster;
    private static JournalTestService primaryService;
    private static EventLoopGroup group;

    private YellowPage page;
    private DefaultNeptuneClient client;
    private final List<ScriptedReplica> scripted = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        group = EventLoops.create("write-outcome", 2);
        cluster = MiniCluster.start(0, b -> b);
        primaryService = new JournalTestService();
        cluster.add("node-0", ClientConfig.defaults(), b -> b.host(primaryService,
                HostingConfig.builder().replicas(2).priority(2).build()));
        cluster.add("node-1", ClientConfig.defaults(), b -> b.host(new JournalTestService(),
                HostingConfig.builder().replicas(2).priority(1).build()));
        ReplicatedProcesses.await(() -> cluster.node(1).replicaRoles(SERVICE, PARTITION).get(NodeId.of("node-0"))
                == ReplicaRole.PRIMARY && cluster.node(1).replicaRoles(SERVICE, PARTITION).get(NodeId.of("node-1"))
                == ReplicaRole.SECONDARY, Duration.ofSeconds(30), "node-0 primary of journal#0, node-1 secondary");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @BeforeEach
    void client() {
        page = new YellowPage(NodeId.of("outcome-client"), Duration.ofMinutes(1), System::nanoTime);
        client = new DefaultNeptuneClient(NodeId.of("outcome-client"), ClientConfig.builder()
                .policy(BalancingPolicy.RANDOM).timeout(DEADLINE).build(), page, group, "127.0.0.1", null,
                new LoadTracker(), List.of());
    }

    @AfterEach
    void close() {
        client.close();
        scripted.forEach(ScriptedReplica::close);
    }

    /**
     * The case a user met: the attempt ran the write at the primary, the connection broke before the
     * answer came back, and every later attempt was refused. The old client reported
     * NoReplicaAvailableException ("Connection refused"), though the write had been applied.
     */
    @Test
    void aWriteThatRanButLostItsAnswerIsOfUnknownOutcomeAndItsRetryRunsNothingTwice() throws Exception {
        ScriptedReplica ghost = script((request, channel) -> forwardToPrimaryThenDrop(request, channel));
        page.update(announcement("ghost", ghost.port(), ReplicaRole.PRIMARY, epoch() + 1));

        Throwable failure = catchThrowable(() -> append("ran-once"));

        assertThat(failure).isInstanceOf(OutcomeUnknownException.class)
                .hasMessageContaining("journal#0.append").hasMessageContaining("may or may not have run");
        OutcomeUnknownException unknown = (OutcomeUnknownException) failure;
        assertThat(unknown.requestId()).matches("[0-9a-f]{32}");
        assertThat(primaryEntries()).as("the attempt that lost its answer ran the write").containsOnlyOnce("ran-once");

        showRealCluster();
        Appended retried = (Appended) unknown.retryAsync().get(10, TimeUnit.SECONDS);
        Appended again = client.call(NeptuneHandle.create(), SERVICE, PARTITION, "append", AccessMode.WRITE,
                new Append("ran-once"), Appended.class, CallOptions.builder().requestId(unknown.requestId()).build());

        assertThat(primaryEntries()).as("retried twice with its request id, the write ran once").containsOnlyOnce(
                "ran-once");
        assertThat(retried).as("the retry answers with the only execution's response").isEqualTo(again);
        assertThat(primaryEntries().get(retried.size() - 1)).isEqualTo("ran-once");
    }

    @Test
    void aWriteWhoseAttemptIsUnansweredAtTheDeadlineIsOfUnknownOutcome() {
        ScriptedReplica silent = script((request, channel) -> { });
        page.update(announcement("ghost", silent.port(), ReplicaRole.PRIMARY, epoch() + 1));

        Throwable failure = catchThrowable(() -> append("unanswered"));

        assertThat(failure).isInstanceOf(OutcomeUnknownException.class).hasMessageContaining("deadline");
        assertThat(silent.received()).isEqualTo(1);
    }

    @Test
    void anInDoubtAnswerMakesTheOutcomeUnknownWhateverFollows() {
        ScriptedReplica inDoubt = script((request, channel) -> channel.writeAndFlush(ResponseMessage.error(
                request.requestId(), Status.IN_DOUBT, "ghost stopped being the primary before the write committed")));
        page.update(announcement("ghost", inDoubt.port(), ReplicaRole.PRIMARY, epoch() + 1));

        Throwable failure = catchThrowable(() -> append("in-doubt"));

        assertThat(failure).isInstanceOf(OutcomeUnknownException.class)
                .hasMessageContaining("before the write committed");
        assertThat(inDoubt.received()).as("retried with the same id until the deadline").isGreaterThan(1);
        assertThat(inDoubt.requestIds()).as("every attempt carries the write's request id").containsOnly(
                ((OutcomeUnknownException) failure).requestId());
    }

    @Test
    void aPrimaryWithoutMajorityRefusesWithATypedRetryableError() {
        ScriptedReplica lonely = script((request, channel) -> channel.writeAndFlush(ResponseMessage.error(
                request.requestId(), Status.NO_MAJORITY, "heard from 1 of 3 replicas (2 needed)")));
        page.update(announcement("ghost", lonely.port(), ReplicaRole.PRIMARY, epoch() + 1));

        Throwable failure = catchThrowable(() -> append("no-majority"));

        assertThat(failure).isInstanceOf(NoMajorityException.class).hasMessageContaining("did not run");
        assertThat(((NoMajorityException) failure).node()).isEqualTo(NodeId.of("ghost"));
        assertThat(lonely.received()).as("retried until the deadline").isGreaterThan(1);
        assertThat(primaryEntries()).doesNotContain("no-majority");
    }

    /**
     * The yellow page still names node-1 as the primary (an announcement interval behind a
     * fail-over); node-1's NOT_PRIMARY names node-0, and the write goes there at once.
     */
    @Test
    void aNotPrimaryAnswerSendsTheWriteToThePrimaryItNames() {
        long epoch = epoch();
        page.update(announcement(cluster.node(0), ReplicaRole.SECONDARY, epoch));
        page.update(announcement(cluster.node(1), ReplicaRole.PRIMARY, epoch + 1));

        long started = System.nanoTime();
        Appended appended = append("redirected");

        assertThat(primaryEntries().get(appended.size() - 1)).isEqualTo("redirected");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no wait for the yellow page")
                .isLessThan(DEADLINE);
    }

    @Test
    void aWriteThatNeverReachedAReplicaIsNotOfUnknownOutcome() {
        ScriptedReplica refusing = script((request, channel) -> { });
        int port = refusing.port();
        refusing.close(); // nothing listens there any more: every connect is refused
        page.update(announcement("ghost", port, ReplicaRole.PRIMARY, epoch() + 1));

        Throwable failure = catchThrowable(() -> append("never-sent"));

        assertThat(failure).as("refused connections prove the write never left the client")
                .isInstanceOf(NeptuneException.class).isNotInstanceOf(OutcomeUnknownException.class);
    }

    @Test
    void notPrimaryExceptionNamesThePrimaryItWasTold() {
        NotPrimaryException e = new NotPrimaryException("journal#0.append", NodeId.of("node-1"), NodeId.of("node-0"),
                "stale page");

        assertThat(e.suggestedPrimary()).contains(NodeId.of("node-0"));
        assertThat(e).hasMessage("journal#0.append refused by node-1: not the primary (primary: node-0) (stale page)");
    }

    // ---------------------------------------------------------------- helpers

    private Appended append(String text) {
        return client.call(NeptuneHandle.create(), SERVICE, PARTITION, "append", AccessMode.WRITE, new Append(text),
                Appended.class);
    }

    /** The primary's journal, read from its service object (a read call could go to the secondary). */
    private static List<String> primaryEntries() {
        return primaryService.all(new FakeRequestContext(SERVICE, PARTITION, "all", AccessMode.READ, 0,
                NodeId.of("node-0")), new ReadAll()).entries();
    }

    private static long epoch() {
        return ((Number) ReplicatedProcesses.status(cluster.node(1), "node-0", SERVICE, PARTITION).get("epoch"))
                .longValue();
    }

    /** Replaces the stand-ins in the client's yellow page with the real primary and secondary. */
    private void showRealCluster() {
        page.remove(NodeId.of("ghost"), "test: the stand-in is gone");
        page.update(announcement(cluster.node(0), ReplicaRole.PRIMARY, epoch()));
        page.update(announcement(cluster.node(1), ReplicaRole.SECONDARY, epoch()));
    }

    /** Runs {@code request} at the real primary, then resets the caller's connection and stops listening. */
    private void forwardToPrimaryThenDrop(RequestMessage request, Channel caller) {
        InetSocketAddress primary = cluster.node(0).requestAddress();
        new Bootstrap().group(group).channel(NioSocketChannel.class).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                Frames.install(ch.pipeline(), 1 << 20);
                ch.pipeline().addLast(new SimpleChannelInboundHandler<ResponseMessage>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, ResponseMessage response) {
                        ctx.close();
                        scripted.forEach(ScriptedReplica::stopListening);
                        caller.config().setOption(ChannelOption.SO_LINGER, 0);
                        caller.close(); // a reset: the answer never reaches the client
                    }
                });
            }
        }).connect(primary).addListener(f -> {
            if (f.isSuccess()) {
                ((io.netty.channel.ChannelFuture) f).channel().writeAndFlush(request);
            }
        });
    }

    private ScriptedReplica script(BiConsumer<RequestMessage, Channel> onRequest) {
        ScriptedReplica replica = new ScriptedReplica(onRequest);
        scripted.add(replica);
        return replica;
    }

    private static Announcement announcement(NeptuneNode node, ReplicaRole role, long epoch) {
        return announcement(node.node().value(), node.requestAddress().getPort(), node.pollAddress().getPort(), role,
                epoch);
    }

    private static Announcement announcement(String node, int tcpPort, ReplicaRole role, long epoch) {
        return announcement(node, tcpPort, tcpPort, role, epoch);
    }

    private static Announcement announcement(String node, int tcpPort, int udpPort, ReplicaRole role, long epoch) {
        Announcement.ReplicaState replica = new Announcement.ReplicaState(PARTITION, 1, role, 0, epoch, 0, epoch, 0);
        Announcement.HostedService service = new Announcement.HostedService(SERVICE, 4, 0, List.of(replica),
                ConsistencyLevel.LEVEL_2, 0);
        return new Announcement(node, "127.0.0.1", tcpPort, udpPort, ProcessHandle.current().pid(), 1, System.nanoTime(),
                0, List.of(service));
    }

    /** A stand-in replica on loopback: it decodes each request frame and hands it to the test's script. */
    private static final class ScriptedReplica implements AutoCloseable {
        private final Channel server;
        private final List<Channel> accepted = Collections.synchronizedList(new ArrayList<>());
        private final List<String> requestIds = Collections.synchronizedList(new ArrayList<>());
        private final AtomicInteger received = new AtomicInteger();

        ScriptedReplica(BiConsumer<RequestMessage, Channel> onRequest) {
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            accepted.add(ch);
                            Frames.install(ch.pipeline(), 1 << 20);
                            ch.pipeline().addLast(new SimpleChannelInboundHandler<RequestMessage>() {
                                @Override
                                protected void channelRead0(ChannelHandlerContext ctx, RequestMessage request) {
                                    received.incrementAndGet();
                                    requestIds.add(request.id().toString());
                                    onRequest.accept(request, ctx.channel());
                                }
                            });
                        }
                    }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        }

        int port() {
            return ((InetSocketAddress) server.localAddress()).getPort();
        }

        int received() {
            return received.get();
        }

        List<String> requestIds() {
            return List.copyOf(requestIds);
        }

        void stopListening() {
            server.close();
        }

        @Override
        public void close() {
            server.close().syncUninterruptibly();
            List.copyOf(accepted).forEach(c -> c.close().syncUninterruptibly());
        }
    }
}
