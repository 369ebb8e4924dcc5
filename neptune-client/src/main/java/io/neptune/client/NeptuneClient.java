package io.neptune.client;

import io.micrometer.core.instrument.MeterRegistry;
import io.neptune.client.internal.ClientMetrics;
import io.neptune.client.internal.MemberClient;
import io.neptune.client.internal.ThinClient;
import io.neptune.core.AccessMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * Calls methods of partitioned services hosted anywhere in the cluster.
 *
 * <p>The client takes the replicas of the target partition from its yellow page, picks one with
 * the load-balancing policy, and sends the call over a pooled, multiplexed TCP connection (or
 * through the local queue when the chosen replica is this node). A call that fails before the
 * method can have run is retried on another replica within the retry budget; a read is also
 * retried when its connection is lost, and a write with the request id drawn for it, which the
 * replicas run at most once (level-2/3 writes at the primary of the moment, until the deadline).
 *
 * <p>Every failure is a {@link NeptuneException}. A write that may have run ends in
 * {@link io.neptune.core.OutcomeUnknownException}, which says how to retry it safely; every other
 * failure means the method did not run, or ran and threw ({@link io.neptune.core.RemoteMethodException}):
 * {@link io.neptune.core.NoReplicaAvailableException}, {@link io.neptune.core.NoMajorityException},
 * {@link io.neptune.core.DeadlineExceededException}, {@link io.neptune.core.UnknownServiceException},
 * {@link io.neptune.core.UnknownMethodException}, {@link io.neptune.core.UnknownPartitionException},
 * {@link io.neptune.core.OverloadedException}; {@link io.neptune.core.AlreadyAppliedException} says a
 * retried write ran exactly once before.
 *
 * <p>Thread-safety: thread-safe; share one instance per application.
 */
public interface NeptuneClient extends AutoCloseable {

    /**
     * Creates a client outside the cluster: it reaches the nodes' request ports only (and their
     * load-poll ports, for the polling policies), learns the yellow page from the nodes {@code config}'s
     * {@linkplain ClientConfig#seeds() seeds} lead to and follows it by asking a node again every
     * {@linkplain ClientConfig#directoryRefresh() refresh interval}. It needs no JGroups and adds nothing
     * to the membership view; balancing, fail-over, exactly-once retries and sessions work as for a
     * member. Returns once it has a first yellow page.
     *
     * @throws IllegalArgumentException if {@code config} names no seed
     * @throws NeptuneException if no seed answered within {@code config}'s call timeout, saying what each did
     */
    static NeptuneClient connect(ClientConfig config) {
        return ThinClient.connect(config, SecurityConfig.disabled(), ClientMetrics.none());
    }

    /**
     * Like {@link #connect(ClientConfig)}, connecting to the nodes with TLS as {@code security} says
     * (a seed, whose node is not known yet, over TLS whenever the client has TLS, and its certificate
     * must name a node; docs/SECURITY.md).
     */
    static NeptuneClient connect(ClientConfig config, SecurityConfig security) {
        return ThinClient.connect(config, security, ClientMetrics.none());
    }

    /**
     * Like {@link #connect(ClientConfig, SecurityConfig)}, recording the client's calls and polls in
     * the application's {@code registry} (docs/OPERATIONS.md, Metrics), which it leaves open on close.
     */
    static NeptuneClient connect(ClientConfig config, SecurityConfig security, MeterRegistry registry) {
        return ThinClient.connect(config, security, ClientMetrics.of(registry));
    }

    /**
     * Creates a standalone client that joins the cluster as a node hosting nothing. It needs JGroups
     * ({@code org.jgroups:jgroups}) on the class path, which {@code neptune-client} alone does not bring;
     * a client outside the cluster's network uses {@link #connect(ClientConfig)} instead.
     *
     * @throws NeptuneException if JGroups is not on the class path
     * @param node this client's node id
     * @param membership how to find the cluster
     * @param config client settings
     */
    static NeptuneClient connect(NodeId node, MembershipConfig membership, ClientConfig config) {
        return MemberClient.connect(node, membership, config, SecurityConfig.disabled());
    }

    /**
     * Creates a standalone client that joins the cluster as a node hosting nothing and connects to
     * the nodes with TLS as {@code security} says (its certificate names the client, such as
     * {@code neptune://client/shop}; docs/SECURITY.md). With a
     * {@linkplain SecurityConfig#clusterSecret() cluster secret} it takes only load-poll replies
     * whose MAC verifies.
     *
     * @param node this client's node id
     * @param membership how to find the cluster
     * @param config client settings
     * @param security the client's TLS: mode, certificate, key and trusted authorities; and the
     *     cluster secret, if the cluster has one
     */
    static NeptuneClient connect(NodeId node, MembershipConfig membership, ClientConfig config,
            SecurityConfig security) {
        return MemberClient.connect(node, membership, config, security);
    }

    /**
     * Calls {@code method} of {@code service} on {@code partition}.
     *
     * @return a future completed with the response, or exceptionally with a {@link NeptuneException}
     */
    <T> CompletableFuture<T> callAsync(NeptuneHandle handle, String service, int partition, String method,
            AccessMode mode, Object request, Class<T> responseType, CallOptions options);

    /** Like {@link #callAsync(NeptuneHandle, String, int, String, AccessMode, Object, Class, CallOptions)} with default options. */
    default <T> CompletableFuture<T> callAsync(NeptuneHandle handle, String service, int partition, String method,
            AccessMode mode, Object request, Class<T> responseType) {
        return callAsync(handle, service, partition, method, mode, request, responseType, CallOptions.defaults());
    }

    /**
     * Calls {@code method} and waits for the response.
     *
     * @throws NeptuneException if the call failed
     */
    <T> T call(NeptuneHandle handle, String service, int partition, String method, AccessMode mode, Object request,
            Class<T> responseType, CallOptions options);

    /** Like {@link #call(NeptuneHandle, String, int, String, AccessMode, Object, Class, CallOptions)} with default options. */
    default <T> T call(NeptuneHandle handle, String service, int partition, String method, AccessMode mode,
            Object request, Class<T> responseType) {
        return call(handle, service, partition, method, mode, request, responseType, CallOptions.defaults());
    }

    /**
     * Scatters one read over {@code partitions} and gathers the results; the future never fails
     * because of a partition: failed partitions are listed in {@link Aggregate#failures()}.
     */
    <T> CompletableFuture<Aggregate<T>> aggregateAsync(NeptuneHandle handle, String service,
            Collection<Integer> partitions, String method, Object request, Class<T> responseType, CallOptions options);

    /**
     * Opens a stream of the stream method {@code method} (a {@code @Read} method returning
     * {@code Flow.Publisher<T>}) on one replica of {@code partition}, chosen once by the call's
     * balancing policy. The returned publisher is cold and takes one subscriber: subscribing opens the
     * stream, {@code request(n)} lets the server send n more items (credit), {@code cancel()} cancels
     * the remote producer. Items arrive in order, one at a time, on a client delivery thread (never
     * an I/O thread). The call's timeout bounds the whole stream.
     *
     * <p>A stream that fails after it opened ends with {@link io.neptune.core.StreamFailedException}
     * (node or connection lost, deadline, remote error, ended by the server), saying how many items
     * were delivered; it is not moved to another replica. Errors before it opens are the typed
     * exceptions of {@link #callAsync} (unknown service or method, no replica, ...).
     */
    <T> Flow.Publisher<T> openStream(NeptuneHandle handle, String service, int partition, String method,
            Object request, Class<T> itemType, CallOptions options);

    /**
     * Opens a bidirectional stream of {@code method} (a {@code @Read} method taking
     * {@code Flow.Publisher<In>} and returning {@code Flow.Publisher<T>}): {@code input}'s items are
     * sent to the method as the server asks for them, and its completion or error ends the method's
     * input. Otherwise like {@link #openStream(NeptuneHandle, String, int, String, Object, Class, CallOptions)}.
     */
    <T> Flow.Publisher<T> openStream(NeptuneHandle handle, String service, int partition, String method,
            Flow.Publisher<?> input, Class<T> itemType, CallOptions options);

    /**
     * Returns a typed proxy of {@code service} implementing {@code serviceInterface}.
     *
     * <p>Each interface method carries {@link io.neptune.core.Read} or {@link io.neptune.core.Write}
     * and takes two arguments: one annotated {@link io.neptune.core.PartitionKey} and the request.
     * It returns the response type, or {@code CompletableFuture} of it for an asynchronous call. A
     * {@code @Read} method returning {@code Flow.Publisher<T>} opens a stream, as
     * {@link #openStream(NeptuneHandle, String, int, String, Object, Class, CallOptions)} does; with a
     * {@code Flow.Publisher<In>} as its request, a bidirectional one.
     * Calls made through the proxy share one {@link NeptuneHandle}.
     *
     * @throws IllegalArgumentException naming the method if the interface does not follow these rules
     */
    default <I> I proxy(Class<I> serviceInterface, String service) {
        return proxy(serviceInterface, service, CallOptions.defaults());
    }

    /**
     * Returns a typed proxy of {@code service} whose calls all use {@code options}: a deadline, a
     * policy or a service class, e.g. {@code client.proxy(Search.class, "search",
     * CallOptions.serviceClass("gold"))} for a gold customer's calls.
     *
     * @throws IllegalArgumentException naming the method if the interface does not follow the rules of
     *     {@link #proxy(Class, String)}
     */
    <I> I proxy(Class<I> serviceInterface, String service, CallOptions options);

    /** The partition count of {@code service} as announced in the yellow page; 0 if no node hosts it. */
    int partitions(String service);

    /**
     * How many successful responses this client received from each node since it started: a
     * metric of where its calls went.
     */
    java.util.Map<NodeId, Long> responsesByNode();

    /** This client's node id. */
    NodeId node();

    /** Closes connections and, for a standalone client, leaves the cluster (or stops following its yellow page); idempotent. */
    @Override
    void close();
}
