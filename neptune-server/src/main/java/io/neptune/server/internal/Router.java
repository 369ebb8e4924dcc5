package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.neptune.client.internal.CallTimers;
import io.neptune.client.internal.Tracing;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.MethodDescriptor;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.DirectoryPage;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.WireFormat;
import io.neptune.server.internal.logging.RequestMdc;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import io.neptune.server.internal.security.Audit;
import io.neptune.server.internal.security.Caller;
import io.neptune.server.internal.security.CallerClasses;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Checks a request against the services hosted here and queues it on its service. Nothing a peer
 * sends can run a method that is not registered. Shared by the TCP dispatcher and in-process calls.
 *
 * <p>Thread-safety: thread-safe; the service map is immutable.
 */
public final class Router {
    private final NodeId node;
    private final Map<String, ServiceRuntime> services;
    private final YellowPage yellowPage;
    private final ReplicationEngine replication;
    private volatile Tracing tracing = Tracing.OFF;
    /** The highest wire version this node speaks ({@link io.neptune.server.NodeConfig#wireVersion()}). */
    private volatile int wireVersion = WireFormat.LATEST;
    private final CallTimers calls;
    private final NodeControl control;
    private final CallerClasses callerClasses;
    /** Client calls routed so far: a draining node waits until none arrives for a while. */
    private final AtomicLong arrivals = new AtomicLong();
    /** Set by a drain once clients stopped choosing this node: new client calls are refused, unrun. */
    private volatile boolean refusing;

    /** The outcome tag of each status: its name in lower case. */
    private static final String[] OUTCOMES = Arrays.stream(Status.values())
            .map(s -> s.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);

    /**
     * Creates a router over the node's hosted services, timing their calls in {@code calls}; node
     * commands go to {@code control}; a call's service class is the one {@code callerClasses} binds its
     * caller to, if any.
     */
    public Router(NodeId node, Map<String, ServiceRuntime> services, YellowPage yellowPage,
            ReplicationEngine replication, CallTimers calls, NodeControl control, CallerClasses callerClasses) {
        this.node = requireNonNull(node, "node");
        this.callerClasses = requireNonNull(callerClasses, "callerClasses");
        this.control = requireNonNull(control, "control");
        this.calls = requireNonNull(calls, "calls");
        this.replication = requireNonNull(replication, "replication");
        this.services = Map.copyOf(services);
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
    }

    /** {@code request} in the class its caller is bound to, if the node binds it to one. */
    private RequestMessage bound(RequestMessage request, Caller caller) {
        String serviceClass = callerClasses.classOf(caller, request.serviceClass());
        return serviceClass.equals(request.serviceClass()) ? request : request.withServiceClass(serviceClass);
    }

    /**
     * Routes {@code request} sent by {@code caller}; {@code reply} receives exactly one response. Lines
     * logged while it is routed, and while a worker serves it, carry its {@link RequestMdc} keys.
     */
    public void route(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply) {
        route(request, caller, reply, null);
    }

    /**
     * Routes {@code request} sent by {@code caller}; for a request that opens a stream, the method's
     * stream goes to {@code stream} and {@code reply} receives only an error (null: this caller
     * cannot carry a stream, so a stream request is refused).
     */
    public void route(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply,
            @Nullable StreamSink stream) {
        try (RequestMdc mdc = RequestMdc.serving(node, request)) {
            routeServing(request, caller, reply, stream);
        }
    }

    /** {@link #route}, with the request's {@link RequestMdc} keys set on this thread. */
    private void routeServing(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply,
            @Nullable StreamSink stream) {
        long id = request.requestId();
        if (request.service().equals(WireFormat.HELLO_SERVICE)) {
            reply.accept(wireVersion == WireFormat.VERSION_1 ? unknownToVersion1(request) : hello(request));
            return;
        }
        if (request.service().equals(ReplicationEngine.SERVICE)) {
            replication.handlePeer(request, caller, reply);
            return;
        }
        if (request.service().equals(NodeControl.SERVICE)) {
            if (!caller.hasRole(Principal.Role.OPERATOR)) {
                reply.accept(ResponseMessage.error(id, Status.PERMISSION_DENIED, "NEP-SEC-020 node command '"
                        + request.method() + "' from " + caller + " (expected: an operator, neptune://operator/...)"));
                return;
            }
            Audit.operatorAction(node, caller, request.method(), Audit.payload(request.payload()));
            control.handle(request, reply);
            return;
        }
        if (request.service().equals(DirectoryPage.SERVICE)) {
            reply.accept(directory(request));
            return;
        }
        arrivals.incrementAndGet();
        if (refusing) {
            reply.accept(ResponseMessage.error(id, Status.UNAVAILABLE, node + " is draining: it takes no new calls"
                    + " (the call did not run; another replica serves it)"));
            return;
        }
        routeTraced(bound(request, caller), caller, reply, stream);
    }

    /**
     * Traces the calls served from now on with {@code tracing}: each gets a SERVER span; set once, before
     * the node takes calls.
     */
    public void traceWith(Tracing tracing) {
        this.tracing = requireNonNull(tracing, "tracing");
    }

    /**
     * Speaks wire version {@code version} at most from now on: at 1 the node answers a hello as a node
     * of a release before version 2 does; set once, before the node takes calls.
     */
    public void speak(int version) {
        this.wireVersion = version;
    }

    /** The highest wire version this node speaks. */
    public int wireVersion() {
        return wireVersion;
    }

    /**
     * {@link #routeCall} in the request's SERVER span when it is traced: the span is current while the
     * call is routed (and queued, so its worker runs the method in it too), and ends with its answer.
     */
    private void routeTraced(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply,
            @Nullable StreamSink stream) {
        Span span = tracing.serverSpan(node, request);
        if (span == null) {
            routeCall(request, caller, reply, stream);
            return;
        }
        Consumer<ResponseMessage> traced = reply;
        if (stream != null) {   // its every answer ends it, and so does a cancel: the span ends with the stream
            stream.whenEnded(outcome -> Tracing.endServer(span, outcome));
        } else {
            traced = response -> {
                Tracing.endServer(span, response.status().name());
                reply.accept(response);
            };
        }
        try (Scope scope = span.makeCurrent()) {
            RequestMdc.traced(); // the route's RequestMdc puts back what the thread had
            routeCall(request, caller, traced, stream);
        }
    }

    /**
     * The answer to a connection's hello: the highest wire version this node reads, as the version of
     * an OK answer (a node of version 1 answers UNKNOWN_SERVICE). Any caller may ask; it takes no worker.
     */
    private static ResponseMessage hello(RequestMessage request) {
        if (!request.method().equals(WireFormat.HELLO_METHOD)) {
            return ResponseMessage.error(request.requestId(), Status.UNKNOWN_METHOD, "wire method '"
                    + request.method() + "' (expected: " + WireFormat.HELLO_METHOD + ")");
        }
        return ResponseMessage.ok(request.requestId(), WireFormat.LATEST, new byte[0]);
    }

    /** A hello as a node of version 1 answers it: a service it does not know, the connection kept. */
    private ResponseMessage unknownToVersion1(RequestMessage request) {
        return ResponseMessage.error(request.requestId(), Status.UNKNOWN_SERVICE, "no service '" + request.service()
                + "' on " + node);
    }

    /**
     * The answer to a thin client's request for the yellow page: any caller may have it, a draining
     * node gives it too (the client learns there that it drains), and it takes no worker.
     */
    private ResponseMessage directory(RequestMessage request) {
        if (!request.method().equals(DirectoryPage.METHOD)) {
            return ResponseMessage.error(request.requestId(), Status.UNKNOWN_METHOD, "directory method '"
                    + request.method() + "' (expected: " + DirectoryPage.METHOD + ")");
        }
        try {
            byte[] page = Json.mapper().writeValueAsBytes(new DirectoryPage(node.value(),
                    List.copyOf(yellowPage.announcements())));
            return ResponseMessage.ok(request.requestId(), 0, page);
        } catch (JsonProcessingException e) {
            return ResponseMessage.error(request.requestId(), Status.METHOD_FAILED, node
                    + " cannot encode its yellow page: " + e.getMessage());
        }
    }

    /** Routes a call of a service method, in the service class it runs in. */
    private void routeCall(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply,
            @Nullable StreamSink stream) {
        long id = request.requestId();
        ServiceRuntime runtime = services.get(request.service());
        if (runtime == null) {
            java.util.OptionalInt known = yellowPage.partitions(request.service());
            if (known.isPresent() && (request.partition() < 0 || request.partition() >= known.getAsInt())) {
                // not a partition anywhere: NOT_HOSTED would send the caller to retry elsewhere
                reply.accept(ResponseMessage.error(id, Status.UNKNOWN_PARTITION, "partition: " + request.partition()
                        + " (expected: 0.." + (known.getAsInt() - 1) + " for '" + request.service() + "')"));
            } else if (known.isPresent()) {
                reply.accept(ResponseMessage.error(id, Status.NOT_HOSTED, node + " hosts no partition of '"
                        + request.service() + "'"));
            } else {
                reply.accept(ResponseMessage.error(id, Status.UNKNOWN_SERVICE, "no service '" + request.service()
                        + "' on " + node + " or in its yellow page"));
            }
            return;
        }
        int partitions = runtime.descriptor().partitions();
        if (request.partition() < 0 || request.partition() >= partitions) {
            reply.accept(ResponseMessage.error(id, Status.UNKNOWN_PARTITION, "partition: " + request.partition()
                    + " (expected: 0.." + (partitions - 1) + ")"));
            return;
        }
        MethodDescriptor method = runtime.descriptor().methods().get(request.method());
        if (method == null) {
            reply.accept(ResponseMessage.error(id, Status.UNKNOWN_METHOD, "service '" + request.service()
                    + "' has methods " + runtime.descriptor().methods().keySet()));
            return;
        }
        // Timed from here on: the service and method are known (bounded tags); streams end on their own path.
        Consumer<ResponseMessage> answer = request.isStream() ? reply : timed(request, reply);
        if (method.mode() != request.mode()) {
            answer.accept(ResponseMessage.error(id, Status.UNKNOWN_METHOD, "'" + method.name() + "' is a "
                    + method.mode() + " method, called as " + request.mode()));
            return;
        }
        if (!method.roles().isEmpty() && method.roles().stream().noneMatch(caller::hasRole)) {
            answer.accept(ResponseMessage.error(id, Status.PERMISSION_DENIED, "NEP-SEC-024 '" + method.name() + "' of '"
                    + request.service() + "' from " + caller + " (expected: a caller with a role of " + method.roles()
                    + ")"));
            return;
        }
        String streamMismatch = streamMismatch(method, request, stream != null);
        if (streamMismatch != null) {
            answer.accept(ResponseMessage.error(id, request.isStream() && stream == null ? Status.INVALID_REQUEST
                    : Status.UNKNOWN_METHOD, streamMismatch));
            return;
        }
        if (!runtime.partitions().hosts(request.partition())) {
            answer.accept(ResponseMessage.error(id, Status.NOT_HOSTED, node + " does not host " + request.service()
                    + "#" + request.partition()));
            return;
        }
        ResponseMessage unknownClass = runtime.unknownClass(request);
        if (unknownClass != null) {
            answer.accept(unknownClass);
            return;
        }
        if (replication.replicates(request.service())) {
            if (method.mode() == AccessMode.WRITE) {
                if (request.id().equals(RequestId.NONE)) {
                    // The log answers a write whose id it already holds as done: ids are what make retries safe.
                    answer.accept(ResponseMessage.error(id, Status.INVALID_REQUEST, "a write to replicated service '"
                            + request.service() + "' needs a request id other than 0, kept across its retries"));
                    return;
                }
                runtime.submitReplicatedWrite(request, method, answer, replication::write);
                return;
            }
            if (replication.role(request.service(), request.partition()) == ReplicaRole.RECOVERING) {
                answer.accept(ResponseMessage.error(id, Status.STALE, node + " is recovering " + request.service() + "#"
                        + request.partition()));
                return;
            }
            // Level-1 versions are each replica's own LSNs: comparing them across replicas means nothing.
            if (runtime.descriptor().consistency() != ConsistencyLevel.LEVEL_1
                    && request.minVersion() > replication.version(request.service(), request.partition())) {
                submitAtVersion(runtime, method, request, answer, stream);
                return;
            }
        }
        if (!fresh(runtime, request)) {
            answer.accept(notFresh(request));
            return;
        }
        runtime.submit(request, method, answer, stream);
    }

    /**
     * Submits a read once this replica reached the version the read asks for, within the bounded wait,
     * or answers STALE. The version arrives on the partition's executor or a timer: the read goes on
     * there in its own context (its SERVER span, its caller's signal), as it would have without the wait.
     */
    private void submitAtVersion(ServiceRuntime runtime, MethodDescriptor method, RequestMessage request,
            Consumer<ResponseMessage> answer, @Nullable StreamSink stream) {
        long arrived = System.nanoTime(); // the wait counts against the read's deadline
        Consumer<Boolean> afterWait = reached -> {
            if (reached && fresh(runtime, request)) {
                runtime.submit(request, method, answer, stream, arrived);
            } else if (reached) {
                answer.accept(notFresh(request));
            } else {
                answer.accept(ResponseMessage.error(request.requestId(), Status.STALE, node + " has not reached"
                        + " version " + request.minVersion() + " of " + request.service() + "#" + request.partition()));
            }
        };
        replication.awaitVersion(request.service(), request.partition(), request.minVersion())
                .thenAccept(Context.current().wrapConsumer(afterWait));
    }

    /** From now on, refuses every client call with UNAVAILABLE before it runs (a drain's last step). */
    void refuseCalls() {
        refusing = true;
    }

    /** Client calls routed since start (refused ones included). */
    long arrivals() {
        return arrivals.get();
    }

    /** {@code reply}, recording the call in {@code neptune.server.calls} when it is answered. */
    private Consumer<ResponseMessage> timed(RequestMessage request, Consumer<ResponseMessage> reply) {
        long arrived = System.nanoTime();
        return response -> {
            calls.record(request.service(), request.method(), OUTCOMES[response.status().ordinal()],
                    System.nanoTime() - arrived);
            reply.accept(response);
        };
    }

    /** Why {@code request} cannot call {@code method} as it does (stream or not, and which kind), or null. */
    private static @Nullable String streamMismatch(MethodDescriptor method, RequestMessage request, boolean canStream) {
        if (request.isStream() && !canStream) {
            return "'" + method.name() + "' opened as a stream where streams cannot go (expected: over TCP)";
        }
        if (method.streamsOut() != request.isStream()) {
            return method.streamsOut() ? "'" + method.name() + "' is a stream method (expected: open it with openStream)"
                    : "'" + method.name() + "' is not a stream method (expected: call it with call or callAsync)";
        }
        boolean bidirectional = request.streaming() == RequestMessage.Streaming.BIDIRECTIONAL;
        if (method.streamsIn() != bidirectional) {
            return method.streamsIn() ? "'" + method.name() + "' takes the client's stream (expected: a stream"
                    + " opened with an input publisher)" : "'" + method.name() + "' takes one request object"
                    + " (expected: a stream opened with a request, not an input publisher)";
        }
        return null;
    }

    /**
     * The load a response to {@code request} carries: this node's load of its service, or of its
     * service class if it names one, as a load poll would answer now; -1 if the service is not hosted.
     */
    public int load(RequestMessage request) {
        ServiceRuntime runtime = services.get(request.service());
        if (runtime == null) {
            return -1;
        }
        return request.hasServiceClass() ? runtime.load(request.serviceClass()) : runtime.load();
    }

    /** The method {@code methodName} of a hosted {@code service}, if there is one. */
    public Optional<MethodDescriptor> method(String service, String methodName) {
        ServiceRuntime runtime = services.get(service);
        return runtime == null ? Optional.empty() : runtime.descriptor().method(methodName);
    }

    /** Level 3 in majority mode: whether this replica can vouch that a read now is within the staleness bound. */
    private boolean fresh(ServiceRuntime runtime, RequestMessage request) {
        return runtime.descriptor().consistency() != ConsistencyLevel.LEVEL_3
                || request.mode() != AccessMode.READ || replication.fresh(request.service(), request.partition());
    }

    private ResponseMessage notFresh(RequestMessage request) {
        return ResponseMessage.error(request.requestId(), Status.STALE, node + " cannot vouch that its copy of "
                + request.service() + "#" + request.partition() + " is within the staleness bound (cut off from"
                + " a majority of its replicas)");
    }

    /** The hosted services by name. */
    public Map<String, ServiceRuntime> services() {
        return services;
    }
}
