package io.neptune.server.process.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneService;
import io.neptune.core.NodeId;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.server.internal.Abortable;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessFailedException;
import io.neptune.server.process.ProcessFailedException.Reason;
import io.neptune.server.process.ProcessMode;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosted instance of a process-backed service: its one read method, {@code run}, runs the
 * configured program for the request's partition. The node hosts it under the configured name and
 * partition count ({@link io.neptune.core.ServiceDescriptor#named}); the annotation's are
 * placeholders.
 *
 * <p>At most {@link ProcessConfig#maxProcesses()} runs at once (a worker beyond that waits for a
 * slot until its deadline). Every process it starts is killed with its group when its run ends, fails
 * or passes its deadline, and when the node {@linkplain #abort() closes}.
 *
 * <p>Thread-safety: thread-safe; {@code run} is called by the service's workers concurrently.
 */
@NeptuneService(name = "process", partitions = 1)
public final class ProcessRunner implements ServiceLifecycle, Abortable {
    private static final Logger logger = LoggerFactory.getLogger(ProcessRunner.class);
    /** How long a kill waits for the killed leader to be reaped. */
    static final Duration KILL_WAIT = Duration.ofSeconds(5);

    private final NodeId node;
    private final ProcessConfig config;
    private final Semaphore slots;
    private final ExecutorService io;
    private final ScheduledExecutorService watchdog;
    private final @Nullable WarmPool warm;
    private final Object lock = new Object();
    /** Per-request processes running now (guarded by lock). */
    private final Set<Process> running = new HashSet<>();
    /** Set once by abort (guarded by lock): no process starts afterwards. */
    private boolean aborted;

    /** Creates the runner of {@code config} on {@code node}; nothing starts before the first request. */
    public ProcessRunner(NodeId node, ProcessConfig config) {
        this.node = requireNonNull(node, "node");
        this.config = requireNonNull(config, "config");
        this.slots = new Semaphore(config.maxProcesses(), true);
        String prefix = "neptune-" + node + "-" + config.name();
        this.io = Executors.newCachedThreadPool(daemon(prefix + "-io-"));
        this.watchdog = Executors.newSingleThreadScheduledExecutor(daemon(prefix + "-watchdog-"));
        this.warm = config.mode() == ProcessMode.WARM ? new WarmPool(this) : null;
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + count.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** The configuration this runner runs. */
    public ProcessConfig config() {
        return config;
    }

    @Override
    public void start(ServiceEnvironment environment) {
        logger.info("{}: hosting {} on partitions {}", node, config, environment.partitions());
    }

    /**
     * Runs the program for {@code request} on the call's partition.
     *
     * @throws ProcessFailedException if the program did not answer (exit code, timeout, output limit, ...)
     * @throws IllegalArgumentException if the request has arguments the command does not take
     */
    @Read
    public ProcessResponse run(RequestContext context, ProcessRequest request) {
        if (!request.args().isEmpty() && !config.command().contains(CommandTemplate.ARGS)) {
            throw new IllegalArgumentException("args: " + request.args() + " (expected: none; the command of "
                    + config.name() + " has no " + CommandTemplate.ARGS + " element)");
        }
        Duration budget = config.timeout();
        boolean callDeadline = false;
        Duration left = context.timeLeft().orElse(budget);
        if (left.compareTo(budget) < 0) {
            budget = left;
            callDeadline = true;
        }
        Deadline deadline = new Deadline(System.nanoTime() + budget.toNanos(), callDeadline
                ? "the call's deadline" : "its timeout of " + config.timeout().toMillis() + " ms");
        String target = context.service() + "#" + context.partition();
        Outcome outcome = new Outcome();
        try {
            if (!slots.tryAcquire(deadline.nanosLeft(), TimeUnit.NANOSECONDS)) {
                throw failure(target, Reason.TIMEOUT, -1, "", "did not start: all " + config.maxProcesses()
                        + " processes (max-processes) stayed busy until " + deadline.what());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(target, Reason.ABORTED, -1, "", "did not start: the worker was interrupted");
        }
        try {
            return warm != null
                    ? warm.run(target, context.partition(), request, deadline, outcome)
                    : new PerRequestRun(this, target, context.partition(), argv(context.partition(), request.args(), true), request, deadline,
                            outcome).run();
        } finally {
            slots.release();
            context.reportResourceUse(outcome.cpu);
        }
    }

    /** The argument vector for {@code partition}: the command expanded, wrapped for accounting if {@code wrap}. */
    List<String> argv(int partition, List<String> args, boolean wrap) {
        List<String> argv = new ArrayList<>();
        if (wrap) {
            argv.addAll(PerRequestRun.WRAPPER);
        }
        argv.addAll(CommandTemplate.expand(config.command(), values(partition), config.partitionArguments(partition),
                args));
        return argv;
    }

    /** The program {@code partition}'s processes run: the command's first element, placeholders substituted. */
    String program(int partition) {
        return CommandTemplate.substitute(config.command().get(0), values(partition));
    }

    /** The working directory of {@code partition}'s processes, or null for the node's. */
    @Nullable Path directory(int partition) {
        String dir = CommandTemplate.substitute(config.workingDirectory(), values(partition));
        return dir.isEmpty() ? null : Path.of(dir);
    }

    /** The variables added to {@code partition}'s processes' environment. */
    Map<String, String> environment(int partition) {
        Map<String, String> environment = new LinkedHashMap<>();
        config.environment().forEach((k, v) -> environment.put(k, CommandTemplate.substitute(v, values(partition))));
        return environment;
    }

    private Map<String, String> values(int partition) {
        return Map.of("partition", Integer.toString(partition), "partitions", Integer.toString(config.partitions()),
                "service", config.name(), "node", node.value());
    }

    /** Makes {@code process} one that {@link #abort()} kills; kills it and throws ABORTED if the node is closing. */
    void register(String target, Process process) {
        synchronized (lock) {
            if (!aborted) {
                running.add(process);
                return;
            }
        }
        ProcessTree.killAndClose(process, KILL_WAIT);
        throw failure(target, Reason.ABORTED, -1, "", "was killed: " + node + " is shutting down");
    }

    void unregister(Process process) {
        synchronized (lock) {
            running.remove(process);
        }
    }

    boolean isAborted() {
        synchronized (lock) {
            return aborted;
        }
    }

    ExecutorService io() {
        return io;
    }

    ScheduledExecutorService watchdog() {
        return watchdog;
    }

    NodeId node() {
        return node;
    }

    ProcessFailedException failure(String target, Reason reason, int exitCode, String stderr, String detail) {
        return new ProcessFailedException(target, config.program(), reason, exitCode, stderr, detail);
    }

    /** Kills every process of this service, running or warm, and refuses new ones; idempotent. */
    @Override
    public void abort() {
        List<Process> victims;
        synchronized (lock) {
            aborted = true;
            victims = new ArrayList<>(running);
        }
        for (Process process : victims) {
            ProcessTree.kill(process, KILL_WAIT);
        }
        if (warm != null) {
            warm.close();
        }
    }

    @Override
    public void stop() {
        abort();
        watchdog.shutdownNow();
        io.shutdownNow();
        logger.info("{}: stopped process service {}; every process it started is killed", node, config.name());
    }

    /** When a run must end, and what that instant is called in errors. */
    record Deadline(long nanos, String what) {
        long nanosLeft() {
            return Math.max(0, nanos - System.nanoTime());
        }
    }

    /** What a run cost, filled in by the run whether it succeeds or fails. */
    static final class Outcome {
        volatile Duration cpu = Duration.ZERO;
    }
}
