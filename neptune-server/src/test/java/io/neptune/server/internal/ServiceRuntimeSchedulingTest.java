package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.internal.CallerGone;
import io.neptune.core.AccessMode;
import io.neptune.core.ClassStats;
import io.neptune.core.MethodDescriptor;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceClass;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.EchoTestService;
import io.neptune.server.HostingConfig;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import io.neptune.server.internal.FaultInjectingYieldFunction.Fault;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service runtime with a class-aware scheduler, its real workers and the echo service: what its
 * callers get back and what the scheduler counts when calls fail, when a provider's yield function
 * fails, and when the runtime closes under a call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceRuntimeSchedulingTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ServiceDescriptor ECHO = ServiceDescriptor.of(EchoTestService.class);

    @TempDir
    Path data;

    private final FaultInjectingYieldFunction faulty = new FaultInjectingYieldFunction(Duration.ofSeconds(30));
    private final ServiceRuntime runtime = new ServiceRuntime(NodeId.of("n1"), ECHO, new EchoTestService(),
            HostingConfig.builder().workers(1).queueCapacity(1).build(), SchedulingConfig.builder()
                    .policy(SchedulingPolicy.EDF).serviceClass(new ServiceClass("faulty", faulty, 0)).build());

    @AfterEach
    void close() {
        faulty.release();
        runtime.close();
    }

    @Test
    void aYieldFunctionThatThrowsFailsTheRequestItWasAskedAboutAndTheWorkerServesTheNext() throws Exception {
        runtime.start(data);
        faulty.inject(Fault.THROW_FROM_YIELD_AT);

        ResponseMessage failed = call("echo", "faulty").get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(failed.status()).isEqualTo(Status.DROPPED);
        assertThat(failed.errorMessage()).contains("yield function of class faulty threw")
                .contains("a yield function failing on purpose").contains("not run");

        ResponseMessage next = call("echo", ServiceClass.DEFAULT_NAME).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(next.status()).as("the one worker still serves").isEqualTo(Status.OK);
    }

    @Test
    void aYieldFunctionWhoseDeadlineThrowsFailsTheCallWithAnAnswerNamingItsClass() throws Exception {
        runtime.start(data);
        faulty.inject(Fault.THROW_FROM_DEADLINE);

        ResponseMessage failed = call("echo", "faulty").get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(failed.status()).isEqualTo(Status.DROPPED);
        assertThat(failed.errorMessage()).contains("yield function of class faulty threw")
                .contains("a deadline failing on purpose").contains("not run");

        ResponseMessage next = call("echo", ServiceClass.DEFAULT_NAME).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(next.status()).isEqualTo(Status.OK);
    }

    @Test
    void aCallThatFailsRealisesNoYield() throws Exception {
        runtime.start(data);

        assertThat(call("fail", ServiceClass.DEFAULT_NAME).get(WAIT.toSeconds(), TimeUnit.SECONDS).status())
                .isEqualTo(Status.METHOD_FAILED);
        assertThat(call("echo", ServiceClass.DEFAULT_NAME).get(WAIT.toSeconds(), TimeUnit.SECONDS).status())
                .isEqualTo(Status.OK);

        ClassStats stats = defaultClassStats();
        assertThat(stats.completed()).as("both ran to an answer").isEqualTo(2);
        assertThat(stats.offeredYield()).isEqualTo(2);
        assertThat(stats.realizedYield()).as("only the answer that succeeded").isEqualTo(1);
        assertThat(stats.lossPercent()).isEqualTo(50);
    }

    /**
     * A replicated write is handed to the replication engine (here a fake that keeps the replies)
     * and counts against queue-capacity until it commits: the second is refused OVERLOADED unrun.
     */
    @Test
    void aReplicatedWriteRefusedAsOverloadedIsCountedRefusedNotCompleted() throws Exception {
        runtime.start(data);
        List<Consumer<ResponseMessage>> committing = new CopyOnWriteArrayList<>();
        BiConsumer<RequestMessage, Consumer<ResponseMessage>> engine = (request, reply) -> committing.add(reply);

        CompletableFuture<ResponseMessage> first = write(engine);
        await().atMost(WAIT).until(() -> committing.size() == 1);
        assertThat(write(engine).get(WAIT.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(Status.OVERLOADED);
        committing.get(0).accept(ResponseMessage.ok(0, 1, JsonCodec.encode(1L)));
        assertThat(first.get(WAIT.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(Status.OK);

        ClassStats stats = defaultClassStats();
        assertThat(stats.arrivals()).isEqualTo(2);
        assertThat(stats.completed()).isEqualTo(1);
        assertThat(stats.droppedQueueFull()).isEqualTo(1);
        assertThat(stats.realizedYield()).isEqualTo(1);
        assertThat(runtime.load(ServiceClass.DEFAULT_NAME)).isZero();
    }

    private CompletableFuture<ResponseMessage> write(BiConsumer<RequestMessage, Consumer<ResponseMessage>> engine)
            throws IOException {
        RequestMessage request = new RequestMessage(0, "echo", 0, "increment", AccessMode.WRITE, 30_000, 0,
                RequestId.NONE, JsonCodec.encode(new EchoTestService.Echo("hi")));
        CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
        runtime.submitReplicatedWrite(request, method("increment"), response::complete, engine);
        return response;
    }

    private ClassStats defaultClassStats() {
        return runtime.classStats().stream().filter(s -> s.serviceClass().equals(ServiceClass.DEFAULT_NAME))
                .findFirst().orElseThrow();
    }

    /**
     * A dispatcher thread checks that the runtime is open, then computes the call's deadline and
     * queues it; here the class's yield function holds it between the two while the runtime closes.
     */
    @Test
    void aCallQueuedWhileTheRuntimeClosedIsAnsweredNotLeftWaiting() throws Exception {
        runtime.start(data);
        faulty.inject(Fault.BLOCK_IN_DEADLINE);
        RequestMessage request = request("echo", "faulty");
        CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
        Thread dispatcher = new Thread(() -> runtime.submit(request, method("echo"), response::complete),
                "test-dispatcher");
        dispatcher.start();
        try {
            assertThat(faulty.awaitBlocked()).as("the call is past the check").isTrue();
            runtime.close(); // its workers stop and what waits is refused, before the call is queued
        } finally {
            faulty.release();
            dispatcher.join(WAIT.toMillis());
        }
        assertThat(dispatcher.isAlive()).isFalse();
        ResponseMessage answer = response.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(answer.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(answer.errorMessage()).isEqualTo("n1 is shutting down");
    }

    @Test
    void aCallWhoseCallerWentWhileItWasQueuedIsNotRun() throws Exception {
        runtime.start(data);
        CompletableFuture<ResponseMessage> busy = new CompletableFuture<>();
        runtime.submit(new RequestMessage(0, "echo", 0, "sleep", AccessMode.READ, 30_000, 0, RequestId.NONE,
                JsonCodec.encode(new EchoTestService.Sleep(500))), method("sleep"), busy::complete);
        await().atMost(WAIT).until(() -> runtime.active() == 1 && runtime.queued() == 0);  // the one worker's
        CallerGone caller = new CallerGone();
        CompletableFuture<ResponseMessage> queued;
        try (Scope scope = caller.into(Context.root()).makeCurrent()) {
            queued = call("echo", ServiceClass.DEFAULT_NAME);   // behind the sleep on the one worker
        }

        caller.signal("its connection closed");

        assertThat(busy.get(WAIT.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(Status.OK);
        ResponseMessage answer = queued.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(answer.status()).isEqualTo(Status.DROPPED);
        assertThat(answer.errorMessage()).isEqualTo("not run on n1: its caller went while it was queued (its"
                + " connection closed)");
        assertThat(defaultClassStats().completed()).as("only the sleep ran").isEqualTo(1);
    }

    private CompletableFuture<ResponseMessage> call(String method, String serviceClass) throws IOException {
        CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
        runtime.submit(request(method, serviceClass), method(method), response::complete);
        return response;
    }

    private static RequestMessage request(String method, String serviceClass) throws IOException {
        return new RequestMessage(0, "echo", 0, method, AccessMode.READ, 30_000, 0, RequestId.NONE,
                JsonCodec.encode(new EchoTestService.Echo("hi")), serviceClass);
    }

    private static MethodDescriptor method(String name) {
        MethodDescriptor method = ECHO.methods().get(name);
        assertThat(method).as("echo's method %s", name).isNotNull();
        return method;
    }
}
