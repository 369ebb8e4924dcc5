package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JavaType;
import io.neptune.client.Aggregate;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.MessageEncoder;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.WireFormat;
import io.netty.channel.EventLoopGroup;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.opentelemetry.api.trace.Span;
import java.lang.reflect.Type;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The client module: resolves a call to candidates in the yellow page, lets the policy pick one,
 * and sends it locally or over the connection pool, retrying within the budget ({@link Call}).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class DefaultNeptuneClient implements NeptuneClient {
    private static final long DEADLINE_TICK_MILLIS = 10;

    private final NodeId node;
    private final ClientConfig config;
    private final YellowPage yellowPage;
    private final EventLoopGroup group;
    private final ConnectionPool pool;
    private final LoadPoller poller;
    private final LoadTracker tracker;
    /**
     * Call deadlines. A wheel, not the event loops' schedulers: arming and cancelling a deadline
     * from a caller thread would wake an event loop twice per call for nothing; the wheel's one
     * thread ticks every {@value #DEADLINE_TICK_MILLIS} ms and is woken by nobody.
     */
    private final HashedWheelTimer deadlines;
    /** Delivers stream items to subscribers: a slow subscriber must not block an I/O thread. */
    private final ExecutorService streamDeliveries;
    private final Map<BalancingPolicy, ReplicaSelector> selectors = new EnumMap<>(BalancingPolicy.class);
    private final LoadAware loadAware;
    private final @Nullable LocalEndpoint local;
    private final List<AutoCloseable> owned;
    private volatile boolean closed;
    private final Map<NodeId, java.util.concurrent.atomic.LongAdder> responses = new ConcurrentHashMap<>();
    private final ClientMetrics metrics;
    private final RetryBackoff backoff;
    private final RetryBudget retryBudget;
    private final ReadLatencies readLatencies = new ReadLatencies();
    private volatile Tracing tracing = Tracing.OFF;

    /**
     * Creates a client over an existing yellow page and event loop group (the embedding node owns both).
     *
     * @param local the embedding node's server, for in-process calls; {@code null} for none
     * @param owned resources the client closes after its own (e.g. a standalone client's membership)
     */
    public DefaultNeptuneClient(NodeId node, ClientConfig config, YellowPage yellowPage, EventLoopGroup group,
            String bindAddress, @Nullable LocalEndpoint local, LoadTracker tracker, List<AutoCloseable> owned) {
        this(node, config, yellowPage, group, bindAddress, local, tracker, owned, ClientMetrics.none(),
                SecurityConfig.disabled());
    }

    /**
     * Creates a client over an existing yellow page and event loop group that records its calls and
     * polls in {@code metrics} and connects to nodes as {@code security} says.
     *
     * @param local the embedding node's server, for in-process calls; {@code null} for none
     * @param owned resources the client closes after its own (e.g. a standalone client's membership)
     */
    public DefaultNeptuneClient(NodeId node, ClientConfig config, YellowPage yellowPage, EventLoopGroup group,
            String bindAddress, @Nullable LocalEndpoint local, LoadTracker tracker, List<AutoCloseable> owned,
            ClientMetrics metrics, SecurityConfig security) {
        this.metrics = requireNonNull(metrics, "metrics");
        this.node = requireNonNull(node, "node");
        this.config = requireNonNull(config, "config");
        this.backoff = RetryBackoff.of(config);
        this.retryBudget = RetryBudget.of(config);
        metrics.bindRetryBudget(retryBudget);
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
        this.group = requireNonNull(group, "group");
        this.local = local;
        this.tracker = requireNonNull(tracker, "tracker");
        this.owned = List.copyOf(owned);
        this.pool = new ConnectionPool(new Connector(group, config.connectTimeout(), config.maxFrameBytes(),
                new ClientTls(security, yellowPage)), yellowPage, config.connectionsPerNode());
        this.poller = new LoadPoller(group, bindAddress, security.clusterSecret());
        this.deadlines = new HashedWheelTimer(new DefaultThreadFactory("neptune-" + node + "-deadlines", true),
                DEADLINE_TICK_MILLIS, TimeUnit.MILLISECONDS);
        this.streamDeliveries = Executors.newCachedThreadPool(new DefaultThreadFactory("neptune-" + node + "-stream",
                true));
        selectors.put(BalancingPolicy.RANDOM, Selectors.random());
        selectors.put(BalancingPolicy.ROUND_ROBIN, Selectors.roundRobin());
        selectors.put(BalancingPolicy.BROADCAST, Selectors.broadcast());
        selectors.put(BalancingPolicy.IDEAL, Selectors.ideal(tracker));
        metrics.bindPoller(poller);
        Selectors.Poller polls = (replica, service, partition, serviceClass) -> metrics.timePoll(
                poller.poll(replica.pollAddress(), service, partition, serviceClass));
        selectors.put(BalancingPolicy.RANDOM_POLLING, Selectors.randomPolling(polls, poller.eventLoop(), config.pollSize(), config.pollDeadline(), config.discardSlowPolls(),
                config.timeout().dividedBy(4))); // a lost poll must leave the call time to run elsewhere
        this.loadAware = new LoadAware(polls, poller.eventLoop(), config.pollSize(), config.pollDeadline(),
                System::nanoTime);
        selectors.put(BalancingPolicy.LOAD_AWARE, loadAware);
        selectors.put(BalancingPolicy.P2C, loadAware.powerOfTwoChoices());
        selectors.put(BalancingPolicy.SERVER_PARTITIONING, new ServerPartitioning(yellowPage,
                selectors.get(BalancingPolicy.RANDOM_POLLING), System::nanoTime, config.partitioningInterval()));
    }

    @Override
    public <T> CompletableFuture<T> callAsync(NeptuneHandle handle, String service, int partition, String method,
            AccessMode mode, Object request, Class<T> responseType, CallOptions options) {
        return invoke(handle, service, partition, method, mode, request, responseType, options);
    }

    /** Like {@link #callAsync} with a generic response type; used by proxies. */
    <T> CompletableFuture<T> invoke(NeptuneHandle handle, String service, int partition, String method,
            AccessMode mode, Object request, Type responseType, CallOptions options) {
        requireNonNull(handle, "handle");
        requireNonNull(service, "service");
        requireNonNull(method, "method");
        requireNonNull(mode, "mode");
        requireNonNull(request, "request");
        requireNonNull(responseType, "responseType");
        requireNonNull(options, "options");
        if (closed) {
            return CompletableFuture.failedFuture(new NeptuneException(node + ": client is closed"));
        }
        byte[] payload;
        try {
            payload = JsonCodec.encode(request);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(new InvalidRequestException("cannot encode request of "
                    + service + "#" + partition + "." + method + " as JSON: " + e.getMessage()));
        }
        long timeoutNanos = options.timeout().orElse(config.timeout()).toNanos();
        int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        RequestId id = mode == AccessMode.READ ? RequestId.NONE
                : options.requestId().map(RequestId::parse).orElseGet(RequestId::random);
        RequestMessage message = new RequestMessage(0, service, partition, method, mode, timeoutMillis,
                mode == AccessMode.READ ? handle.version(service, partition) : 0, id, payload,
                options.serviceClass().orElse(ServiceClass.DEFAULT_NAME));
        String invalid = invalidFrame(message);
        if (invalid != null) {
            return CompletableFuture.failedFuture(new InvalidRequestException(invalid));
        }
        Span span = tracing.clientSpan(node, message);
        if (span != null) {
            message = Tracing.carrying(span, message);
        }
        CompletableFuture<T> call = start(handle, message, responseType, options, request, id);
        if (span != null) {
            call.whenComplete((answer, failure) -> Tracing.end(span, failure));
        }
        return call;
    }

    private <T> CompletableFuture<T> start(NeptuneHandle handle, RequestMessage message, Type responseType,
            CallOptions options, Object request, RequestId id) {
        String service = message.service();
        int partition = message.partition();
        String method = message.method();
        AccessMode mode = message.mode();
        long timeoutNanos = options.timeout().orElse(config.timeout()).toNanos();
        BalancingPolicy policy = options.policy().orElse(config.policy());
        // what OutcomeUnknownException.retryAsync() sends: the same write with the same id
        Supplier<CompletableFuture<Object>> retry = mode == AccessMode.READ ? null : () -> invoke(handle, service,
                partition, method, mode, request, responseType, options.toBuilder().requestId(id.toString()).build());
        JavaType type = Json.mapper().constructType(responseType);
        if (HedgedRead.applies(this, message)) {
            return new HedgedRead<T>(this, message, timeoutNanos, left -> new Call<>(this, handle, message, type, policy,
                    left, null)).start();
        }
        return new Call<T>(this, handle, message, type, policy, timeoutNanos, retry).start();
    }

    @Override
    public <T> Flow.Publisher<T> openStream(NeptuneHandle handle, String service, int partition, String method,
            Object request, Class<T> itemType, CallOptions options) {
        requireNonNull(request, "request");
        return stream(handle, service, partition, method, request, null, itemType, options);
    }

    @Override
    public <T> Flow.Publisher<T> openStream(NeptuneHandle handle, String service, int partition, String method,
            Flow.Publisher<?> input, Class<T> itemType, CallOptions options) {
        requireNonNull(input, "input");
        return stream(handle, service, partition, method, null, input, itemType, options);
    }

    /**
     * Opens a stream of {@code method}: of {@code request}'s answer, or bidirectional on {@code input}
     * (exactly one of the two is null); items decoded as {@code itemType}, which may be generic.
     */
    <T> Flow.Publisher<T> stream(NeptuneHandle handle, String service, int partition, String method,
            @Nullable Object request, Flow.@Nullable Publisher<?> input, java.lang.reflect.Type itemType,
            CallOptions options) {
        requireNonNull(handle, "handle");
        requireNonNull(service, "service");
        requireNonNull(method, "method");
        requireNonNull(itemType, "itemType");
        requireNonNull(options, "options");
        byte[] payload;
        try {
            payload = request == null ? new byte[0] : Json.mapper().writeValueAsBytes(request);
        } catch (Exception e) {
            return failed(new InvalidRequestException("cannot encode request of " + service + "#" + partition + "."
                    + method + " as JSON: " + e.getMessage()));
        }
        long timeoutNanos = options.timeout().orElse(config.timeout()).toNanos();
        int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        RequestMessage message = new RequestMessage(0, service, partition, method, AccessMode.READ, timeoutMillis,
                handle.version(service, partition), RequestId.NONE, payload,
                options.serviceClass().orElse(ServiceClass.DEFAULT_NAME),
                input == null ? RequestMessage.Streaming.OUTPUT : RequestMessage.Streaming.BIDIRECTIONAL);
        String invalid = invalidFrame(message);
        if (invalid != null) {
            return failed(new InvalidRequestException(invalid));
        }
        if (closed) {
            return failed(new NeptuneException(node + ": client is closed"));
        }
        return new ClientStream<>(this, message, input, Json.mapper().constructType(itemType),
                options.policy().orElse(config.policy()), timeoutNanos);
    }

    /** A publisher that fails its subscriber at once with {@code error}. */
    static <T> Flow.Publisher<T> failed(NeptuneException error) {
        return subscriber -> {
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {}
            });
            subscriber.onError(error);
        };
    }

    ExecutorService streamDeliveries() {
        return streamDeliveries;
    }

    /**
     * Why no node would accept {@code message}, or null: a name or frame over the limits would
     * fail to encode, or make the receiver close the connection, and every retry would do the same.
     */
    private @Nullable String invalidFrame(RequestMessage message) {
        String invalid = invalidName(message.service());
        if (invalid == null) {
            invalid = invalidName(message.method());
        }
        if (invalid != null) {
            return invalid;
        }
        long frame = MessageEncoder.wireLength(message);
        return frame <= config.maxFrameBytes() ? null : message.target() + ": request of " + frame
                + " bytes (expected: at most max-frame-size, " + config.maxFrameBytes() + " bytes)";
    }

    private static @Nullable String invalidName(String name) {
        if (name.length() <= WireFormat.MAX_NAME_BYTES / 3) {
            return null; // UTF-8 takes at most 3 bytes per char: no need to count (the usual case, on every call)
        }
        int bytes = WireFormat.nameBytes(name);
        return bytes <= WireFormat.MAX_NAME_BYTES ? null : "name '" + name.substring(0, 40) + "...': " + bytes
                + " bytes of UTF-8 (expected: at most " + WireFormat.MAX_NAME_BYTES + ")";
    }

    @Override
    public <T> T call(NeptuneHandle handle, String service, int partition, String method, AccessMode mode,
            Object request, Class<T> responseType, CallOptions options) {
        refuseBlockingOnIoThread();   // before the call starts: once sent, a refusal could not say "it did not run"
        return await(callAsync(handle, service, partition, method, mode, request, responseType, options));
    }

    /**
     * Throws if this thread is one of this client's I/O threads, which complete the calls' futures:
     * a blocking call there could wait for itself.
     */
    void refuseBlockingOnIoThread() {
        for (EventExecutor loop : group) {
            if (loop.inEventLoop()) {
                throw new IllegalStateException(node + ": a blocking call on Neptune I/O thread "
                        + Thread.currentThread().getName() + " would wait for the thread it blocks; use callAsync"
                        + " and its CompletableFuture, or move the work to an executor of your own");
            }
        }
    }

    /**
     * Waits for {@code future} of a call started after {@link #refuseBlockingOnIoThread}, rethrowing its
     * {@link NeptuneException} as is. Interrupted, it abandons the call: no attempt follows, and a write
     * that may have been sent ends in {@link io.neptune.core.OutcomeUnknownException}.
     */
    <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(future, "interrupted while waiting for the call", e);
            try {
                return future.getNow(null);   // answered meanwhile
            } catch (CompletionException | java.util.concurrent.CancellationException ended) {
                throw ended instanceof CompletionException ? unwrap(ended.getCause())
                        : new NeptuneException("interrupted while waiting for a call", e);
            }
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
    }

    /**
     * Gives up {@code future}, a call this client started, for {@code why}: no attempt follows, and a
     * write that may have been sent ends in {@link io.neptune.core.OutcomeUnknownException}.
     */
    static void abandon(CompletableFuture<?> future, String why) {
        abandon(future, why, new NeptuneException(why));
    }

    private static void abandon(CompletableFuture<?> future, String why, Throwable cause) {
        if (future instanceof Call<?>.Result call) {
            call.abandon(why, cause);
        } else {
            future.cancel(false);
        }
    }

    static NeptuneException unwrap(@Nullable Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof NeptuneException neptune) {
            return neptune;
        }
        return new NeptuneException("call failed: " + cause, cause);
    }

    @Override
    public <T> CompletableFuture<Aggregate<T>> aggregateAsync(NeptuneHandle handle, String service,
            Collection<Integer> partitions, String method, Object request, Class<T> responseType, CallOptions options) {
        Map<Integer, T> results = Collections.synchronizedMap(new HashMap<>()); // a method may return null
        Map<Integer, NeptuneException> failures = new ConcurrentHashMap<>();
        List<CompletableFuture<?>> calls = new ArrayList<>(partitions.size());
        for (int partition : partitions) {
            calls.add(callAsync(handle, service, partition, method, AccessMode.READ, request, responseType, options)
                    .handle((result, error) -> {
                        if (error == null) {
                            results.put(partition, result);
                        } else {
                            failures.put(partition, unwrap(error));
                        }
                        return null;
                    }));
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> Aggregate.of(results, failures));
    }

    @Override
    public <I> I proxy(Class<I> serviceInterface, String service, CallOptions options) {
        requireNonNull(options, "options");
        return Proxies.create(this, serviceInterface, service, options);
    }

    /**
     * Sends {@code request} to {@code node} itself, not load balanced: the peer protocols of
     * replication use it. Requests with the same {@code affinity} keep their order.
     */
    public CompletableFuture<ResponseMessage> sendTo(NodeId target, RequestMessage request, int affinity) {
        LocalEndpoint endpoint = local;
        if (endpoint != null && endpoint.node().equals(target)) {
            return endpoint.invoke(request);
        }
        Optional<Announcement> announcement = yellowPage.announcement(target);
        if (announcement.isEmpty()) {
            return CompletableFuture.failedFuture(new CallFailure(target + " is not in the yellow page", false));
        }
        Announcement a = announcement.get();
        Replica replica = new Replica(target, new InetSocketAddress(a.host(), a.tcpPort()),
                new InetSocketAddress(a.host(), a.udpPort()), 0, ReplicaRole.SECONDARY, 0, 0);
        return pool.sendOrdered(replica, request, affinity);
    }

    /**
     * Traces the calls made from now on with {@code tracing}: a CLIENT span each, its context in the
     * request's metadata. Set by the embedding node before its first call; off by default.
     */
    public void traceWith(Tracing tracing) {
        this.tracing = requireNonNull(tracing, "tracing");
    }

    /** How this client traces its calls. */
    public Tracing tracing() {
        return tracing;
    }

    @Override
    public int partitions(String service) {
        return yellowPage.partitions(service).orElse(0);
    }

    /** How many load polls this client sent (random polling and load-aware); a metric, and for tests. */
    public long pollsSent() {
        return poller.sent();
    }

    @Override
    public Map<NodeId, Long> responsesByNode() {
        Map<NodeId, Long> counts = new java.util.TreeMap<>(java.util.Comparator.comparing(NodeId::value));
        responses.forEach((node, count) -> counts.put(node, count.sum()));
        return counts;
    }

    void countResponse(NodeId node) {
        responses.computeIfAbsent(node, n -> new java.util.concurrent.atomic.LongAdder()).increment();
    }

    @Override
    public NodeId node() {
        return node;
    }

    YellowPage yellowPage() {
        return yellowPage;
    }

    ConnectionPool pool() {
        return pool;
    }

    @Nullable LocalEndpoint local() {
        return local;
    }

    LoadTracker tracker() {
        return tracker;
    }

    LoadAware loadAware() {
        return loadAware;
    }

    ReplicaSelector selector(BalancingPolicy policy) {
        return requireNonNull(selectors.get(policy), "selectors: one for every policy");
    }

    EventLoopGroup group() {
        return group;
    }

    HashedWheelTimer deadlines() {
        return deadlines;
    }

    ClientConfig config() {
        return config;
    }

    ClientMetrics metrics() {
        return metrics;
    }

    RetryBackoff backoff() {
        return backoff;
    }

    RetryBudget retryBudget() {
        return retryBudget;
    }

    ReadLatencies readLatencies() {
        return readLatencies;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pool.close();
        poller.close();
        for (Timeout pending : deadlines.stop()) { // calls still running: no answer can reach them now
            if (pending.task() instanceof Call<?> call) {
                call.closed();
            }
        }
        for (AutoCloseable resource : owned) {
            try {
                resource.close();
            } catch (Exception e) {
                throw new NeptuneException(node + ": cannot close " + resource + ": " + e.getMessage(), e);
            }
        }
        streamDeliveries.shutdown(); // a stream failed by a connection closing later still gets its end (inline)
    }
}
