package io.neptune.server.process.internal;

import io.neptune.server.process.ProcessFailedException;
import io.neptune.server.process.ProcessFailedException.Reason;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warm processes of one service on one node. A request takes an idle process of its partition,
 * or starts one (each partition's processes run that partition's command); afterwards the process
 * goes back to idle unless it failed. Live processes, busy and idle, stay within
 * {@code max-processes}: starting one beyond it first kills the longest-idle process of another
 * partition (the caller holds one of the runner's slots, so when the pool is full some process is idle).
 *
 * <p>Thread-safety: thread-safe; the sets are guarded by {@code lock}, processes start and die outside it.
 */
final class WarmPool {
    private static final Logger logger = LoggerFactory.getLogger(WarmPool.class);

    private final ProcessRunner runner;
    private final Object lock = new Object();
    /** Idle processes, longest idle first (guarded by lock). */
    private final Set<WarmProcess> idle = new LinkedHashSet<>();
    /** Every live process, busy or idle (guarded by lock). */
    private final Set<WarmProcess> live = new HashSet<>();
    /** Processes being started (guarded by lock); counted against the limit. */
    private int starting;
    private boolean closed;

    WarmPool(ProcessRunner runner) {
        this.runner = runner;
    }

    ProcessResponse run(String target, int partition, ProcessRequest request, ProcessRunner.Deadline deadline,
            ProcessRunner.Outcome outcome) {
        WarmProcess process = take(target, partition);
        boolean healthy = false;
        try {
            ProcessResponse response = process.exchange(target, request.input().getBytes(StandardCharsets.UTF_8),
                    deadline, outcome);
            healthy = true;
            return response;
        } catch (ProcessFailedException e) {
            healthy = e.reason() == Reason.ERROR_REPLY;
            throw e;
        } finally {
            giveBack(process, healthy && process.isAlive());
        }
    }

    private WarmProcess take(String target, int partition) {
        WarmProcess evicted = null;
        List<WarmProcess> unusable = new ArrayList<>();
        try {
            synchronized (lock) {
                if (closed) {
                    throw runner.failure(target, Reason.ABORTED, -1, "", "was not started: " + runner.node()
                            + " is shutting down");
                }
                for (Iterator<WarmProcess> it = idle.iterator(); it.hasNext(); ) {
                    WarmProcess candidate = it.next();
                    if (candidate.partition() != partition) {
                        continue;
                    }
                    it.remove();
                    if (candidate.reusable()) {
                        return candidate;
                    }
                    live.remove(candidate); // died while idle, or wrote while idle: a fresh one serves instead
                    unusable.add(candidate);
                }
            }
        } finally {
            unusable.forEach(WarmProcess::kill);
        }
        synchronized (lock) {
            if (closed) {
                throw runner.failure(target, Reason.ABORTED, -1, "", "was not started: " + runner.node()
                        + " is shutting down");
            }
            if (live.size() + starting >= runner.config().maxProcesses() && !idle.isEmpty()) {
                evicted = idle.iterator().next();
                idle.remove(evicted);
                live.remove(evicted);
            }
            starting++;
        }
        if (evicted != null) {
            logger.debug("{}: {} stops a warm process of partition {} to start one for partition {}", runner.node(),
                    runner.config().name(), evicted.partition(), partition);
            evicted.kill();
        }
        return start(target, partition);
    }

    private WarmProcess start(String target, int partition) {
        WarmProcess process;
        try {
            Process started = ProcessTree.start(runner.program(partition), runner.argv(partition, List.of(), false), runner.directory(partition),
                    runner.environment(partition));
            try {
                process = new WarmProcess(runner, partition, started);
            } catch (RuntimeException e) { // the runner's threads are gone: the node is closing
                ProcessTree.killAndClose(started, ProcessRunner.KILL_WAIT);
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            synchronized (lock) {
                starting--;
            }
            throw runner.failure(target, Reason.START_FAILED, -1, "", "could not start: " + e.getMessage());
        }
        boolean closedMeanwhile;
        synchronized (lock) {
            starting--;
            closedMeanwhile = closed; // then close() could not see it
            if (!closedMeanwhile) {
                live.add(process);
            }
        }
        if (closedMeanwhile) {
            process.kill();
            throw runner.failure(target, Reason.ABORTED, -1, "", "was killed: " + runner.node() + " is shutting down");
        }
        logger.info("{}: started warm process {} of {}", runner.node(), process.process().pid(), target);
        return process;
    }

    private void giveBack(WarmProcess process, boolean healthy) {
        boolean kill;
        synchronized (lock) {
            kill = !healthy || closed;
            if (kill) {
                live.remove(process);
            } else {
                idle.add(process);
            }
        }
        if (kill) {
            process.kill();
        }
    }

    /** Kills every warm process, busy or idle, and starts no more; idempotent. */
    void close() {
        List<WarmProcess> victims;
        synchronized (lock) {
            closed = true;
            victims = new ArrayList<>(live);
            live.clear();
            idle.clear();
        }
        for (WarmProcess process : victims) {
            process.kill();
        }
    }
}
