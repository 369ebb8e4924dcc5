package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A crashed process runs nothing more, even when something of its incarnation is set off after it
 * restarted: a future of the dead replica completes (a peer's crash fails its calls) and its
 * callback queues a task on the dead replica's executor. Run in the next incarnation, that task
 * once let a dead primary's pipeline apply from a log the new replica had truncated (seed 40 of
 * fail-stop-2).
 */
class SimProcessTest {
    private final Simulator sim = new Simulator(1);
    private final SimProcess process = new SimProcess(sim, 0);
    private final List<String> ran = new ArrayList<>();

    private void runAll() {
        while (sim.step()) {
            // every event due
        }
    }

    @Test
    void theExecutorAndTimerOfAnEndedIncarnationRunNothingInTheNextOne() {
        process.start();
        Executor oldPool = process.pool();
        ScheduledExecutorService oldTimer = process.timer();
        CompletableFuture<Void> oldCall = new CompletableFuture<>();
        oldCall.whenComplete((v, e) -> oldPool.execute(() -> ran.add("old callback")));
        process.crash();
        process.start();
        Executor newPool = process.pool();

        oldCall.completeExceptionally(new IllegalStateException("connection closed"));
        oldPool.execute(() -> ran.add("old task"));
        oldTimer.schedule(() -> ran.add("old timer"), 1, TimeUnit.MILLISECONDS);
        newPool.execute(() -> ran.add("new task"));
        process.timer().schedule(() -> ran.add("new timer"), 1, TimeUnit.MILLISECONDS);
        runAll();

        assertThat(ran).containsExactly("new task", "new timer");
    }

    @Test
    void anEventOfAnIncarnationIsHeldWhilePausedAndDroppedOnceItEnded() {
        process.start();
        int first = process.incarnation();
        process.pause();
        process.schedule(0, "before crash", () -> ran.add("held"));
        runAll();
        assertThat(ran).isEmpty();
        process.resume();
        runAll();
        assertThat(ran).containsExactly("held");

        process.crash();
        process.start();
        process.scheduleIn(first, 0, "late reply", () -> ran.add("late reply"));
        runAll();

        assertThat(ran).containsExactly("held");
    }
}
