package io.neptune.core;

import java.util.concurrent.CompletableFuture;

/**
 * Calls a service method makes to other services, or to other partitions of its own, as part of the
 * call it serves (the multi-tier services of the dissertation's Figure 2.2): {@link RequestContext#client()}.
 *
 * <p>Each inner call inherits from the call being served:
 * <ul>
 *   <li>its <b>deadline</b>: the time the outer caller still waits, less a margin (100 ms, or a tenth of
 *       what is left if that is less) so the outer method can still answer, and its answer reach the
 *       caller, after an inner call timed out.
 *       A call with no deadline (a replicated write applied from the log) gives its inner calls the
 *       client's default timeout;</li>
 *   <li>its <b>service class</b>, so a gold customer's request stays gold on every tier;</li>
 *   <li>a <b>session</b>: the inner calls of one outer call share one, so at level 3 an inner read sees
 *       the inner writes made before it;</li>
 *   <li>for writes, a <b>request id derived from the outer one</b> and the inner write's rank (the first
 *       inner write of the call, the second, ...): a retried outer write, or a replicated write that each
 *       replica applies, sends its inner writes with the same ids, and they run once.</li>
 * </ul>
 * Calls to a partition hosted on the same node stay in the process. An inner call still under way
 * when the outer call ends goes on until it completes or its deadline passes.
 *
 * <p>A blocking inner call to the method's own service is refused ({@code NEP-CALL-001}) unless the
 * method is declared {@link Read#reentrant()} (or {@link Write#reentrant()}): it waits on a worker for
 * another worker of the same service, and when all of them wait the service deadlocks. Asynchronous
 * calls are always allowed.
 *
 * <p>A write of a replicated service runs on every replica as it applies its log, and again on a
 * replica that recovers from its log. Its inner writes therefore go out from each replica, with the
 * same derived ids, and run once (within the target's window of remembered request ids); its inner
 * reads run once per replica. Such a method may only make asynchronous inner calls: a blocking one
 * would stall its partition's log applier and is refused ({@code NEP-CALL-002}). Make calls whose
 * answers a write needs from a read or an unreplicated tier in front of it.
 *
 * <p>Thread-safety: thread-safe; valid while the outer call runs (and its asynchronous answer is pending).
 */
public interface ServiceCalls {
    /**
     * Calls {@code method} of {@code service} on {@code partition}.
     *
     * @return a future completed with the response, or exceptionally with a {@link NeptuneException}
     */
    <T> CompletableFuture<T> callAsync(String service, int partition, String method, AccessMode mode, Object request,
            Class<T> responseType);

    /**
     * Calls {@code method} and waits for the response.
     *
     * @throws NeptuneException if the call failed
     * @throws IllegalStateException if {@code service} is the calling method's own and the method is not
     *     declared reentrant, or the thread is one of Neptune's I/O threads
     */
    <T> T call(String service, int partition, String method, AccessMode mode, Object request, Class<T> responseType);

    /**
     * A typed proxy of {@code service}, by the rules of the client's proxies (each method {@code @Read}
     * or {@code @Write}, taking a {@link PartitionKey} argument and the request), whose calls are inner
     * calls of this one.
     *
     * @throws IllegalArgumentException naming the method if the interface does not follow those rules
     */
    <I> I proxy(Class<I> serviceInterface, String service);

    /** The partition count of {@code service} as announced in the yellow page; 0 if no node hosts it. */
    int partitions(String service);
}
