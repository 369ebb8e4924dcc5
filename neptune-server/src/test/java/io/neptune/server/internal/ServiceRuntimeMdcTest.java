package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.HostingConfig;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.internal.MdcTestService.Call;
import io.neptune.server.internal.MdcTestService.Seen;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.MDC;

/**
 * The MDC a service method runs under (docs/OPERATIONS.md, Logs): its request's keys on the worker,
 * nothing left over from the request the same worker served before, and the caller's own MDC put
 * back when a non-blocking read runs on the caller's thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceRuntimeMdcTest {
    private static final ServiceDescriptor DESCRIPTOR = ServiceDescriptor.of(MdcTestService.class);

    @TempDir
    Path data;

    private ServiceRuntime runtime;

    @BeforeEach
    void startWithOneWorker() {
        runtime = new ServiceRuntime(NodeId.of("n1"), DESCRIPTOR, new MdcTestService(),
                HostingConfig.builder().workers(1).build(), SchedulingConfig.defaults());
        runtime.start(data);
    }

    @AfterEach
    void close() {
        runtime.close();
        MDC.clear();
    }

    @Test
    void aWorkerRunsEachMethodUnderItsRequestsKeysAndNothingTheRequestBeforeLeft() throws Exception {
        Seen first = call("read", 1, 7, RequestId.NONE, "alice");
        assertThat(first.mdc()).isEqualTo(Map.of("node", "n1", "service", "mdc", "partition", "1", "requestId", "7"));

        RequestId write = RequestId.random();
        Seen second = call("write", 0, 8, write, "");
        assertThat(second.thread()).as("the same pooled worker").isEqualTo(first.thread());
        assertThat(second.mdc()).as("no 'user' left by the first method, no key of the first request")
                .isEqualTo(Map.of("node", "n1", "service", "mdc", "partition", "0", "requestId", "8",
                        "traceId", write.toString()));
    }

    @Test
    void aNonBlockingReadOnTheCallersThreadPutsBackTheCallersMdc() throws Exception {
        MDC.put("app", "checkout-42");
        Seen seen = call("inline", 1, 9, RequestId.NONE, "bob");
        assertThat(seen.thread()).as("run on the caller's thread").isEqualTo(Thread.currentThread().getName());
        assertThat(seen.mdc()).isEqualTo(Map.of("app", "checkout-42", "node", "n1", "service", "mdc", "partition",
                "1", "requestId", "9"));
        assertThat(MDC.getCopyOfContextMap()).as("the caller's MDC afterwards").isEqualTo(Map.of("app",
                "checkout-42"));
    }

    private Seen call(String method, int partition, long requestId, RequestId id, String leave) throws Exception {
        AccessMode mode = DESCRIPTOR.methods().get(method).mode();
        RequestMessage request = new RequestMessage(requestId, "mdc", partition, method, mode, 30_000, 0, id,
                JsonCodec.encode(new Call(leave)));
        CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
        runtime.submit(request, DESCRIPTOR.methods().get(method), response::complete);
        ResponseMessage answer = response.get(30, TimeUnit.SECONDS);
        assertThat(answer.status()).as("%s", answer).isEqualTo(Status.OK);
        return JsonCodec.decode(answer.payload(), Seen.class);
    }
}
