package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.LoadPoller;
import io.neptune.core.AccessMode;
import io.neptune.core.ClusterSecret;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceClass;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.wire.Poll;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.server.EchoTestService;
import io.neptune.server.HostingConfig;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's load-index server and the client's poller, both real, over loopback UDP, with and
 * without a cluster secret on either side (issue 23, polls; docs/SECURITY.md, Load polls), and
 * never waiting for a service's scheduler.
 */
class LoadIndexServerTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final NodeId NODE = NodeId.of("n1");
    private static final ClusterSecret SECRET = secret("the-cluster-secret-of-this-test");

    private final EventLoopGroup group = EventLoops.create("load-index-test", 1);
    private final ServiceRuntime echo = new ServiceRuntime(NODE, ServiceDescriptor.of(EchoTestService.class),
            new EchoTestService(), HostingConfig.all(), SchedulingConfig.defaults());
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) { // the last opened first
            opened.get(i).close();
        }
        echo.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aNodeAndAClientSharingTheSecretPollWithMacs() {
        LoadIndexServer server = server(SECRET);
        LoadPoller poller = poller(SECRET);

        for (int i = 0; i < 3; i++) {
            Poll.Reply reply = poller.poll(server.address(), "echo", i, "default")
                    .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
            assertThat(reply.load()).as("echo is hosted and idle").isZero();
        }
        Poll.Reply notHosted = poller.poll(server.address(), "nope", 0, "default")
                .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
        assertThat(notHosted.load()).isEqualTo(-1);
        assertThat(server.macReplies()).isEqualTo(4);
        assertThat(poller.unauthenticatedReplies() + poller.badMacReplies() + poller.replayedReplies()
                + poller.ignoredReplies() + poller.unmatchedReplies()).isZero();
    }

    @Test
    void aNodeWithASecretAnswersAClientWithoutOneAsBefore() {
        LoadIndexServer server = server(SECRET);
        LoadPoller poller = poller(null);

        assertThat(poller.poll(server.address(), "echo", 0, "default").orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
                .join().load()).isZero();
        assertThat(server.macReplies()).isZero();
    }

    @Test
    void aClientWithASecretTakesNoReplyFromANodeWithoutOne() {
        LoadIndexServer server = server(null);
        LoadPoller poller = poller(SECRET);

        CompletableFuture<Poll.Reply> poll = poller.poll(server.address(), "echo", 0, "default");
        await().atMost(WAIT).until(() -> poll.isDone() || poller.unauthenticatedReplies() == 1);

        assertThat(poll).as("answered without a MAC").isNotDone();
        assertThat(poller.pending()).isEqualTo(1);
    }

    @Test
    void aClientTakesNoReplyFromANodeWithAnotherSecret() {
        LoadIndexServer server = server(secret("the-secret-of-another-cluster"));
        LoadPoller poller = poller(SECRET);

        CompletableFuture<Poll.Reply> poll = poller.poll(server.address(), "echo", 0, "default");
        await().atMost(WAIT).until(() -> poll.isDone() || poller.badMacReplies() == 1);

        assertThat(poll).as("answered with a MAC of another key").isNotDone();
        assertThat(server.macReplies()).isEqualTo(1);
    }

    /**
     * The class-aware scheduler holds its lock through a scheduling point, and a provider's yield
     * function runs under it: a poll, answered on the event loop, must not wait for that.
     */
    @Test
    void aPollIsAnsweredWhileAWorkerHoldsTheSchedulerInASlowYieldFunction(@TempDir Path data) throws Exception {
        FaultInjectingYieldFunction slow = new FaultInjectingYieldFunction(Duration.ofSeconds(30));
        ServiceRuntime classAware = new ServiceRuntime(NODE, ServiceDescriptor.of(EchoTestService.class),
                new EchoTestService(), HostingConfig.builder().workers(1).build(), SchedulingConfig.builder()
                        .policy(SchedulingPolicy.EDF).serviceClass(new ServiceClass("slow", slow, 0)).build());
        opened.add(classAware);
        opened.add(slow::release); // closed before the runtime, which waits for its worker
        classAware.start(data);
        LoadIndexServer server = server(null, classAware);
        LoadPoller poller = poller(null);
        slow.inject(FaultInjectingYieldFunction.Fault.BLOCK_IN_YIELD_AT);
        RequestMessage request = new RequestMessage(0, "echo", 0, "echo", AccessMode.READ, 30_000, 0, RequestId.NONE,
                JsonCodec.encode(new EchoTestService.Echo("hi")), "slow");
        classAware.submit(request, ServiceDescriptor.of(EchoTestService.class).methods().get("echo"), response -> {});
        assertThat(slow.awaitBlocked()).as("the worker in the yield function, under the scheduler's lock").isTrue();

        Poll.Reply reply = poller.poll(server.address(), "echo", 0, "slow").orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
                .join();
        assertThat(reply.load()).as("the request still queued").isEqualTo(1);
        assertThat(reply.classLoad()).isEqualTo(1);
    }

    private LoadIndexServer server(@Nullable ClusterSecret secret) {
        return server(secret, echo);
    }

    private LoadIndexServer server(@Nullable ClusterSecret secret, ServiceRuntime runtime) {
        LoadIndexServer server = new LoadIndexServer(NODE, group, "127.0.0.1", 0, Map.of("echo", runtime), secret);
        opened.add(server);
        return server;
    }

    private LoadPoller poller(@Nullable ClusterSecret secret) {
        LoadPoller poller = new LoadPoller(group, "127.0.0.1", secret);
        opened.add(poller);
        return poller;
    }

    private static ClusterSecret secret(String value) {
        return ClusterSecret.fromEnvironment(Map.of(ClusterSecret.ENVIRONMENT_VARIABLE, value)).orElseThrow();
    }
}
