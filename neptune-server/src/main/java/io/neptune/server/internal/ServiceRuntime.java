package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.internal.CallerGone;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.Tracing;
import io.neptune.core.AccessMode;
import io.neptune.core.ClassStats;
import io.neptune.core.MethodDescriptor;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceClass;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Snapshottable;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.HostingConfig;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.internal.logging.RequestMdc;
import io.opentelemetry.context.Scope;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One hosted service: its bounded queue ({@link Scheduler}), its worker threads, and the load index
 * (active + queued requests) that polls and announcements report. A worker runs a call through
 * {@link ServiceMethods}, which turns it into a call of the service's method and its result into the
 * answer.
 *
 * <p>Every call into the service for a partition (its methods, {@code @Check}, {@code @Digest} and
 * {@link Snapshottable} calls) runs only while this node hosts the partition ({@link PartitionGate}):
 * once {@link #place} dropped a partition, new calls of it are refused and
 * {@link #partitionRemoved} waits for the running ones before it tells the service.
 *
 * <p>Thread-safety: thread-safe. {@link #submit} runs on dispatcher threads (event loops or the
 * local caller); methods run on the service's own workers, except a {@code @Read(blocking = false)}
 * one on a node without service classes, which runs on the dispatcher thread itself.
 */
public final class ServiceRuntime implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(ServiceRuntime.class);
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private final NodeId node;
    private final ServiceDescriptor descriptor;
    private final Object instance;
    private final HostingConfig hosting;
    private final SchedulingConfig scheduling;
    private final Scheduler scheduler;
    /** The scheduler when it is class-aware, else null: then no per-request cost is measured. */
    private final @Nullable ClassAwareScheduler classAware;
    private final ServiceMethods methods;
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicInteger active = new AtomicInteger();
    /** Replicated writes this node accepted and has not answered yet (they run on the replication engine). */
    private final ReplicatedWrites replicatedWrites;
    private final AtomicLong served = new AtomicLong();
    private volatile boolean closed;
    private volatile @Nullable DefaultNeptuneClient client;
    /** The partitions hosted here now; a call of one runs only while it is. */
    private final HostedPartitions partitions;
    /** The service's snapshot support behind the gate, or null if it is not {@link Snapshottable}. */
    private final @Nullable Snapshottable snapshots;

    /** Creates the runtime, scheduling its queue by {@code scheduling}; {@link #start()} starts its workers. */
    public ServiceRuntime(NodeId node, ServiceDescriptor descriptor, Object instance, HostingConfig hosting,
            SchedulingConfig scheduling) {
        this.node = requireNonNull(node, "node");
        this.descriptor = requireNonNull(descriptor, "descriptor");
        this.instance = requireNonNull(instance, "instance");
        this.hosting = requireNonNull(hosting, "hosting");
        this.scheduling = requireNonNull(scheduling, "scheduling");
        this.classAware = scheduling.plainFifo() ? null : new ClassAwareScheduler(scheduling, hosting.queueCapacity(),
                System::nanoTime, this::unserved);
        this.scheduler = classAware != null ? classAware : new FifoScheduler(hosting.queueCapacity());
        this.replicatedWrites = new ReplicatedWrites(node, descriptor.name(), hosting.queueCapacity(), scheduler);
        this.partitions = new HostedPartitions(node, descriptor, hosting, instance);
        this.snapshots = instance instanceof Snapshottable s ? partitions.gated(s) : null;
        this.methods = new ServiceMethods(node, descriptor, instance);
    }

    /**
     * Starts the service ({@link ServiceLifecycle#start} with its data directory) and the worker threads.
     */
    public void start(Path dataDirectory) {
        if (instance instanceof ServiceLifecycle lifecycle) {
            lifecycle.start(new LiveEnvironment(dataDirectory));
        }
        for (int i = 0; i < hosting.workers(); i++) {
            Thread worker = new Thread(this::work, "neptune-" + node + "-" + descriptor.name() + "-" + i);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
    }

    /** The service description. */
    public ServiceDescriptor descriptor() {
        return descriptor;
    }

    /** How this node hosts the service. */
    public HostingConfig hosting() {
        return hosting;
    }

    /**
     * Sets where reads learn the version they were served at, asked after the method ran: at least
     * the LSN of every write whose effects the read may have seen.
     */
    public void versions(ToLongFunction<Integer> versions) {
        methods.versions(versions);
    }

    /**
     * Why a replicated write's payload is no request of its method (the INVALID_REQUEST message), or
     * null: checked before the write is logged, since a record is applied on every replica and its
     * LSN taken whether or not the apply can decode it.
     */
    public @Nullable String undecodable(RequestMessage request) {
        return methods.undecodable(request);
    }

    /**
     * Runs the replicated write {@code write} at {@code lsn} on the calling thread (the partition's
     * replication executor) and returns its response; a method that throws yields METHOD_FAILED. Lines
     * logged meanwhile carry the write's {@link RequestMdc} keys, and its inner calls derive their
     * write ids from {@code write}.
     *
     * @throws NeptuneException if the partition is not hosted here (any more): the write did not run
     */
    public ResponseMessage executeWrite(int partition, String methodName, byte[] payload, long lsn, RequestId write) {
        MethodDescriptor method = descriptor.methods().get(methodName);
        if (method == null) {
            return ResponseMessage.error(0, Status.UNKNOWN_METHOD, "no method '" + methodName + "' in " + descriptor.name());
        }
        partitions.enter(partition);
        try (RequestMdc mdc = RequestMdc.applying(node, descriptor.name(), partition, write)) {
            return executeHosted(partition, method, payload, lsn, write);
        } finally {
            partitions.exit(partition);
        }
    }

    private ResponseMessage executeHosted(int partition, MethodDescriptor method, byte[] payload, long lsn,
            RequestId id) {
        String methodName = method.name();
        RequestMessage request = new RequestMessage(0, descriptor.name(), partition, methodName, AccessMode.WRITE, 1,
                0, id, payload);
        long cpu = classAware != null ? CPU.getCurrentThreadCpuTime() : 0;
        CallContext context = context(request, lsn, CallContext.NO_DEADLINE, CallerGone.NEVER);
        ResponseMessage response = requireNonNull(methods.invoke(request, method, context, null), "response");
        if (classAware != null) {
            replicatedWrites.applied(methodName, context.reportedNanos() >= 0 ? context.reportedNanos()
                    : CPU.getCurrentThreadCpuTime() - cpu);
        }
        if (response.status() == Status.OK) {
            served.incrementAndGet();
        }
        return response;
    }

    /**
     * The CHECK callback of the service: whether the write with {@code lsn} was applied on {@code partition}.
     *
     * @throws NeptuneException if the partition is not hosted here (any more)
     */
    public boolean check(int partition, long lsn) {
        Method check = descriptor.checkMethod().orElseThrow(() -> new IllegalStateException(descriptor.name()
                + " has no @Check method"));
        partitions.enter(partition);
        try {
            return (Boolean) methods.callback(check, partition, lsn);
        } finally {
            partitions.exit(partition);
        }
    }

    /**
     * The service's snapshot support, if it implements {@link Snapshottable}: each call runs only
     * while the partition is hosted here, else throws an {@code IOException}.
     */
    public Optional<Snapshottable> snapshottable() {
        return Optional.ofNullable(snapshots);
    }

    /**
     * The digest callback's answer for {@code partition}, if the service has one.
     *
     * @throws NeptuneException if the partition is not hosted here (any more)
     */
    public Optional<String> digest(int partition) {
        return descriptor.digestMethod().map(m -> {
            partitions.enter(partition);
            try {
                return (String) methods.callback(m, partition);
            } finally {
                partitions.exit(partition);
            }
        });
    }

    /** The partitions hosted here now, and the operator's changes to them. */
    public HostedPartitions partitions() {
        return partitions;
    }

    /** Active plus queued requests, including replicated writes in progress: the load index. */
    public int load() {
        return active.get() + scheduler.size() + replicatedWrites.inProgress();
    }

    /**
     * Hands a replicated write to {@code engine} (which answers {@code reply} when it commits), through
     * the class-aware scheduler if there is one: the scheduler decides when the write is admitted, and
     * counts it against its class until it commits; the order of writes in a partition's log is the
     * order the engine receives them. With a plain FIFO queue the write goes to the engine at once.
     */
    public void submitReplicatedWrite(RequestMessage request, MethodDescriptor method, Consumer<ResponseMessage> reply,
            BiConsumer<RequestMessage, Consumer<ResponseMessage>> engine) {
        if (classAware == null) {
            Consumer<ResponseMessage> admitted = replicatedWrites.admit(request, reply);
            if (admitted != null) {
                engine.accept(request, admitted);
            }
            return;
        }
        if (closed) {
            reply.accept(shuttingDown(request.requestId()));
            return;
        }
        long arrival = System.nanoTime();
        long deadline;
        try {
            deadline = deadline(request, arrival);
        } catch (YieldFunctionFailed e) {
            reply.accept(e.answer(request.requestId()));
            return;
        }
        Task task = new Task(request, method, arrival, deadline, reply,
                admittedTask -> replicatedWrites.handOver(admittedTask, reply, engine));
        if (!scheduler.offer(task)) {
            reply.accept(refusal(request));
        }
    }

    /** The answer to request {@code requestId} that came while this runtime closes. */
    private ResponseMessage shuttingDown(long requestId) {
        return ResponseMessage.error(requestId, Status.UNAVAILABLE, node + " is shutting down");
    }

    /** The answer to a request the scheduler refused: the queue is full, or shut down since the caller checked. */
    private ResponseMessage refusal(RequestMessage request) {
        if (closed) { // set before the scheduler shuts down
            return shuttingDown(request.requestId());
        }
        return ResponseMessage.error(request.requestId(), Status.OVERLOADED,
                descriptor.name() + " queue full on " + node + " (" + hosting.queueCapacity() + " waiting)");
    }

    /** Requests waiting in the queue for a worker. */
    public int queued() {
        return scheduler.size();
    }

    /** Requests a worker is running now. */
    public int active() {
        return active.get();
    }

    /** Replicated writes accepted here and not answered yet. */
    public int replicatedWritesInProgress() {
        return replicatedWrites.inProgress();
    }

    /** Requests this service answered since start. */
    public long served() {
        return served.get();
    }

    /** Per-class counters of this service's queue, sorted by class; empty for a plain FIFO queue. */
    public List<ClassStats> classStats() {
        return scheduler.stats();
    }

    /** Requests of {@code serviceClass} waiting or running here. */
    public int load(String serviceClass) {
        return classAware != null ? classAware.load(serviceClass) : load();
    }

    /**
     * Why this node would refuse a request of {@code serviceClass}, as an UNKNOWN_CLASS response; null
     * if it declares the class.
     */
    public @Nullable ResponseMessage unknownClass(RequestMessage request) {
        if (scheduling.classes().containsKey(request.serviceClass())) {
            return null;
        }
        return ResponseMessage.error(request.requestId(), Status.UNKNOWN_CLASS, "service class '"
                + request.serviceClass() + "' (expected: one of " + new TreeSet<>(scheduling.classes().keySet())
                + ", the classes " + node + " declares)");
    }

    /** Queues {@code request}; {@code reply} gets the response, or OVERLOADED at once if the queue is full. */
    public void submit(RequestMessage request, MethodDescriptor method, Consumer<ResponseMessage> reply) {
        submit(request, method, reply, null);
    }

    /**
     * Queues {@code request}; for a request that opens a stream, the worker runs the method and hands
     * its stream to {@code stream} (the method counts in the load index while it runs, not while its
     * publisher produces); {@code reply} gets any error, or OVERLOADED at once if the queue is full.
     */
    public void submit(RequestMessage request, MethodDescriptor method, Consumer<ResponseMessage> reply,
            @Nullable StreamSink stream) {
        submit(request, method, reply, stream, System.nanoTime());
    }

    /**
     * As {@link #submit(RequestMessage, MethodDescriptor, Consumer, StreamSink)}, for a request that
     * reached the node at {@code arrivalNanos} ({@link System#nanoTime()}) and waited since (a read
     * waiting for its {@code minVersion}): its response time and deadline count from then, so a
     * request whose caller gave up meanwhile is answered DEADLINE_EXCEEDED (or DROPPED by a
     * class-aware scheduler), not run.
     */
    public void submit(RequestMessage request, MethodDescriptor method, Consumer<ResponseMessage> reply,
            @Nullable StreamSink stream, long arrivalNanos) {
        if (closed) {
            reply.accept(shuttingDown(request.requestId()));
            return;
        }
        ResponseMessage unknown = unknownClass(request);
        if (unknown != null) {
            reply.accept(unknown);
            return;
        }
        long deadline;
        try {
            deadline = deadline(request, arrivalNanos);
        } catch (YieldFunctionFailed e) {
            reply.accept(e.answer(request.requestId()));
            return;
        }
        if (!method.blocking() && stream == null && classAware == null) {
            answer(new Task(request, method, arrivalNanos, deadline, reply, null, null)); // on this thread
            return;
        }
        if (!scheduler.offer(new Task(request, method, arrivalNanos, deadline, reply, null, stream))) {
            reply.accept(refusal(request));
        }
    }

    private void work() {
        while (!closed) {
            Task task;
            try {
                task = scheduler.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (task != null) {
                answer(task);
            }
        }
    }

    /**
     * Runs {@code task} on this thread and answers it; it counts in the load index meanwhile. A
     * worker's loop calls it, and so does {@link #submit} for a {@code @Read(blocking = false)}
     * method: then it runs on the I/O thread of a remote call and its answer is written there, with no
     * queue, no worker and no hop back to the event loop.
     */
    private void answer(Task task) {
        active.incrementAndGet();
        try (Scope scope = task.context().makeCurrent(); RequestMdc mdc = RequestMdc.serving(node, task.request())) {
            tracing().queued(task.context(), task.arrivalNanos());
            try {
                ResponseMessage response = classAware != null ? runMeasured(task) : runAnswering(task);
                if (response != null) {
                    task.reply().accept(response);
                }
            } catch (RuntimeException e) {
                logger.error("{}: reply to {} failed", node, task.request(), e);
            }
        } finally {
            active.decrementAndGet();
        }
    }

    /**
     * {@link #runAnswering}, telling the scheduler how long it took, what it cost (CPU time unless
     * reported) and whether it succeeded.
     */
    private @Nullable ResponseMessage runMeasured(Task task) {
        long started = System.nanoTime();
        if (started - task.deadlineNanos() > 0) {
            scheduler.expired(task);
            return expired(task);
        }
        if (task.handoff() != null) {
            task.handoff().accept(task); // the engine answers, and the scheduler hears of it, when it commits
            return null;
        }
        ResponseMessage callerGone = callerGone(task);
        if (callerGone != null) {
            scheduler.expired(task);
            return callerGone;
        }
        long cpu = CPU.getCurrentThreadCpuTime();
        CallContext context = context(task);
        @Nullable ResponseMessage response = null;
        boolean answered = false;
        try {
            response = runAnswering(task, context);
            answered = true;
        } finally {
            long finished = System.nanoTime();
            long cost = context.reportedNanos() >= 0 ? context.reportedNanos() : CPU.getCurrentThreadCpuTime() - cpu;
            // only a success realises yield; null is a stream that started, and answers on its own
            if (answered && (response == null || response.status() == Status.OK)) {
                scheduler.completed(task, started, finished, cost);
            } else {
                scheduler.failed(task, started, finished, cost);
            }
        }
        return response;
    }

    /**
     * When the caller gives up on {@code request}, or its class's deadline D passes if that is sooner.
     *
     * @throws YieldFunctionFailed if the class's yield function (a provider's code) threw
     */
    private long deadline(RequestMessage request, long arrival) throws YieldFunctionFailed {
        long timeout = TimeUnit.MILLISECONDS.toNanos(request.timeoutMillis());
        if (classAware != null) {
            ServiceClass serviceClass = requireNonNull(scheduling.classes().get(request.serviceClass()),
                    "serviceClass: unknownClass() refused the undeclared ones");
            try {
                timeout = Math.min(timeout, serviceClass.yield().deadline().toNanos());
            } catch (RuntimeException e) {
                throw new YieldFunctionFailed("the yield function of class " + serviceClass.name() + " threw " + e
                        + " at deadline(); not run", e);
            }
        }
        return arrival + timeout;
    }

    /** A service class's yield function threw: its call is answered {@link Status#DROPPED}, unrun. */
    private static final class YieldFunctionFailed extends Exception {
        private static final long serialVersionUID = 1L;
        private final String reason;

        YieldFunctionFailed(String reason, RuntimeException cause) {
            super(reason, cause);
            this.reason = reason;
        }

        ResponseMessage answer(long requestId) {
            return ResponseMessage.error(requestId, Status.DROPPED, reason);
        }
    }

    /** Answers a request the scheduler took out of its queue unrun (dropped, pushed out or expired). */
    private void unserved(Task task, Status status, String reason) {
        try (RequestMdc mdc = RequestMdc.serving(node, task.request())) {
            try {
                task.reply().accept(ResponseMessage.error(task.request().requestId(), status, reason + " on " + node));
            } catch (RuntimeException e) {
                logger.error("{}: reply to {} failed", node, task.request(), e);
            }
        }
    }

    private ResponseMessage expired(Task task) {
        return ResponseMessage.error(task.request().requestId(), Status.DEADLINE_EXCEEDED,
                "deadline passed while queued on " + node + "; not run");
    }

    /** {@link #run}, answering even when the JVM failed under it (out of memory): the worker lives on. */
    private @Nullable ResponseMessage runAnswering(Task task) {
        if (System.nanoTime() - task.deadlineNanos() > 0) {
            return expired(task);
        }
        if (task.handoff() == null) {
            ResponseMessage callerGone = callerGone(task);
            if (callerGone != null) {
                return callerGone;
            }
        }
        return runAnswering(task, context(task));
    }

    /**
     * The answer to {@code task}, not run, if its caller went while it was queued (its connection closed,
     * or it cancelled the stream); null if the caller still waits. A replicated write is not asked: the
     * engine takes it whatever happened to its caller, as its retry may come by another connection.
     */
    private @Nullable ResponseMessage callerGone(Task task) {
        String why = CallerGone.in(task.context()).reason();
        return why == null ? null : ResponseMessage.error(task.request().requestId(), Status.DROPPED,
                "not run on " + node + ": its caller went while it was queued (" + why + ")");
    }

    private @Nullable ResponseMessage runAnswering(Task task, CallContext context) {
        try {
            return run(task, context);
        } catch (VirtualMachineError e) {
            logger.error("{}: {} failed: the JVM is in trouble", node, task.request().target(), e);
            return ResponseMessage.error(task.request().requestId(), Status.METHOD_FAILED, e.getClass().getName()
                    + " on " + node + ": " + e.getMessage());
        }
    }

    private @Nullable ResponseMessage run(Task task, CallContext context) {
        RequestMessage request = task.request();
        if (!partitions.tryEnter(request.partition())) { // it left this node while the call waited
            return ResponseMessage.error(request.requestId(), Status.NOT_HOSTED, partitions.notHosted(request.partition()));
        }
        ResponseMessage response;
        try {
            response = methods.invoke(request, task.method(), context, task.stream());
        } finally {
            partitions.exit(request.partition());
        }
        if (response == null || response.status() == Status.OK) {
            served.incrementAndGet();
        }
        return response;
    }

    /**
     * Inner calls of the methods ({@link io.neptune.core.RequestContext#client()}) go through
     * {@code client}, the node's, from now on; before, a method asking for them is told the node has
     * not started.
     */
    public void callThrough(DefaultNeptuneClient client) {
        this.client = requireNonNull(client, "client");
    }

    /** How the node traces its calls: its client's tracing, off until the node started its client. */
    private Tracing tracing() {
        DefaultNeptuneClient through = client;
        return through == null ? Tracing.OFF : through.tracing();
    }

    private CallContext context(RequestMessage request, long lsn, long deadlineNanos, CallerGone caller) {
        MethodDescriptor method = descriptor.methods().get(request.method());
        return new CallContext(node, request, lsn, deadlineNanos, method != null && method.reentrant(), client,
                caller);
    }

    /** The context {@code task} runs in: its deadline, and the signal that its caller went. */
    private CallContext context(Task task) {
        return context(task.request(), 0, task.deadlineNanos(), CallerGone.in(task.context()));
    }

    /** Stops the workers and refuses what is still queued; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (instance instanceof Abortable abortable) {
            try {
                abortable.abort(); // a method waiting on a child process ends now, not at its own timeout
            } catch (RuntimeException e) {
                logger.warn("{}: {} abort() threw", node, descriptor.name(), e);
            }
        }
        // Workers finish the method they run (not interrupted: an interrupt can close a database's file
        // channel under it), within one deadline for all of them.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> stuck = new ArrayList<>();
        for (Thread worker : workers) {
            try {
                worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (worker.isAlive()) {
                stuck.add(worker.getName());
            }
        }
        for (Task task : scheduler.shutdown()) { // and a submit that checked closed before we set it is refused
            task.reply().accept(shuttingDown(task.request().requestId()));
        }
        if (!stuck.isEmpty()) {
            logger.warn("{}: {} workers still run a method after 10 s ({}); not calling {}'s stop() under them", node,
                    stuck.size(), stuck, descriptor.name());
            return;
        }
        if (instance instanceof ServiceLifecycle lifecycle) {
            try {
                lifecycle.stop();
            } catch (RuntimeException e) {
                logger.warn("{}: {} stop() threw", node, descriptor.name(), e);
            }
        }
    }

    /**
     * The environment the service starts with: its partitions are the ones hosted now, so they
     * follow the operator's placement changes.
     */
    private final class LiveEnvironment implements ServiceEnvironment {
        private final Path dataDirectory;

        LiveEnvironment(Path dataDirectory) {
            this.dataDirectory = requireNonNull(dataDirectory, "dataDirectory");
        }

        @Override
        public NodeId node() {
            return node;
        }

        @Override
        public Path dataDirectory() {
            return dataDirectory;
        }

        @Override
        public Set<Integer> partitions() {
            return Collections.unmodifiableSortedSet(partitions.hosted());
        }

        @Override
        public String toString() {
            return "ServiceEnvironment[node=" + node + ", dataDirectory=" + dataDirectory + ", partitions="
                    + partitions() + "]";
        }
    }
}
