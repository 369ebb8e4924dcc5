package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** A partition's serial executor on the node's shared replication pool. */
class SerialExecutorTest {
    /**
     * A failed {@code assert} or a bug in one replica task must not go unseen: the executor hands it
     * to the pool thread's uncaught-exception handler (in the test suites the JVM's default one,
     * {@code BackgroundFailures}, which fails the test) and runs the tasks after it on the same thread.
     */
    @Test
    void aTaskThatThrowsIsReportedToTheThreadsHandlerAndTheNextTasksStillRun() throws InterruptedException {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread thread = new Thread(r, "serial-executor-test");
            thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
            threads.add(thread);
            return thread;
        });
        try {
            SerialExecutor serial = new SerialExecutor(pool, "test#0");
            AssertionError bug = new AssertionError("off the partition's executor");
            IllegalStateException failure = new IllegalStateException("a bug in one task");
            CountDownLatch after = new CountDownLatch(1);
            serial.execute(() -> {
                throw bug;
            });
            serial.execute(() -> {
                throw failure;
            });
            serial.execute(after::countDown);

            assertThat(after.await(30, TimeUnit.SECONDS)).as("the task after the failed ones ran").isTrue();
            assertThat(uncaught).containsExactly(bug, failure);
            assertThat(threads).as("no pool thread died of it").hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aDrainThatYieldsWhileThePoolShutsDownEndsWithoutKillingThePoolThread() throws InterruptedException {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread thread = new Thread(r, "serial-executor-test");
            thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
            return thread;
        });
        SerialExecutor serial = new SerialExecutor(pool, "test#0");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        serial.execute(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);   // past the drain's 5 ms budget
            while (System.nanoTime() < end) {
                LockSupport.parkNanos(1_000_000);
            }
        });
        serial.execute(() -> { });   // left for after the yield
        assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
        pool.shutdown();   // the node closing: the drain's yield is refused
        release.countDown();

        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(uncaught).as("exceptions that killed the pool thread").isEmpty();
    }

    /**
     * A task that waits for I/O ({@code resumeAfter}, a persisted epoch) gives its pool thread back: other
     * partitions run meanwhile, its own partition runs nothing, and once the I/O is done its continuation
     * runs before the tasks queued while it waited.
     */
    @Test
    void aTaskWaitingForIoFreesThePoolThreadAndItsContinuationRunsBeforeTheTasksQueuedMeanwhile() {
        Queue<Runnable> pool = new ArrayDeque<>();
        SerialExecutor waiting = new SerialExecutor(pool::add, "svc#0");
        SerialExecutor other = new SerialExecutor(pool::add, "svc#1");
        CompletableFuture<Void> forced = new CompletableFuture<>();
        List<String> ran = new ArrayList<>();

        waiting.execute(() -> {
            ran.add("vote");
            waiting.resumeAfter(forced, () -> ran.add("reply"));
        });
        waiting.execute(() -> ran.add("next"));
        other.execute(() -> ran.add("other partition"));
        runAll(pool);

        assertThat(ran).containsExactly("vote", "other partition");
        assertThat(pool).as("no pool thread is held while the partition waits").isEmpty();

        waiting.execute(() -> ran.add("queued while waiting"));
        runAll(pool);
        assertThat(ran).containsExactly("vote", "other partition");

        forced.complete(null);
        runAll(pool);
        assertThat(ran).containsExactly("vote", "other partition", "reply", "next", "queued while waiting");
    }

    /** I/O that is already done does not wait: the continuation runs in the task that asked, as a plain call would. */
    @Test
    void aTaskWhoseIoIsAlreadyDoneGoesOnAtOnce() {
        Queue<Runnable> pool = new ArrayDeque<>();
        SerialExecutor serial = new SerialExecutor(pool::add, "svc#0");
        List<String> ran = new ArrayList<>();

        serial.execute(() -> {
            serial.resumeAfter(CompletableFuture.completedFuture(null), () -> ran.add("reply"));
            ran.add("rest of the task");
        });
        serial.execute(() -> ran.add("next"));
        runAll(pool);

        assertThat(ran).containsExactly("reply", "rest of the task", "next");
    }

    /**
     * I/O that fails (the epoch could not be written) skips the continuation: the failure is reported as a
     * failed task's, and the partition goes on with its next task.
     */
    @Test
    void failedIoSkipsTheContinuationIsReportedAndThePartitionGoesOn() {
        Queue<Runnable> pool = new ArrayDeque<>();
        SerialExecutor serial = new SerialExecutor(pool::add, "svc#0");
        CompletableFuture<Void> forced = new CompletableFuture<>();
        List<String> ran = new ArrayList<>();
        List<Throwable> uncaught = new ArrayList<>();
        Thread self = Thread.currentThread();
        Thread.UncaughtExceptionHandler before = self.getUncaughtExceptionHandler();
        self.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            serial.execute(() -> serial.resumeAfter(forced, () -> ran.add("reply")));
            serial.execute(() -> ran.add("next"));
            runAll(pool);
            IllegalStateException failure = new IllegalStateException("cannot persist epoch 7");
            forced.completeExceptionally(failure);
            runAll(pool);

            assertThat(ran).containsExactly("next");
            assertThat(uncaught).containsExactly(failure);
        } finally {
            self.setUncaughtExceptionHandler(before);
        }
    }

    /**
     * A task that asks to wait twice is a bug that would lose the first continuation and leave the
     * partition standing still for good: it fails loudly, with or without {@code -ea}.
     */
    @Test
    void aTaskThatWaitsTwiceFailsInsteadOfLosingItsFirstContinuation() {
        Queue<Runnable> pool = new ArrayDeque<>();
        SerialExecutor serial = new SerialExecutor(pool::add, "svc#0");
        List<Throwable> uncaught = new ArrayList<>();
        Thread self = Thread.currentThread();
        Thread.UncaughtExceptionHandler before = self.getUncaughtExceptionHandler();
        self.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        try {
            serial.execute(() -> {
                serial.resumeAfter(new CompletableFuture<>(), () -> { });
                serial.resumeAfter(new CompletableFuture<>(), () -> { });
            });
            runAll(pool);

            assertThat(uncaught).hasSize(1);
            assertThat(uncaught.get(0)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("svc#0: a task waits for I/O twice; its first continuation would be lost");
        } finally {
            self.setUncaughtExceptionHandler(before);
        }
    }

    /**
     * The tick of an idle partition runs on the thread that ticks a batch of partitions, with no hand-off
     * to the pool; a partition with work queued or running gets its tick queued behind that work, and
     * what an inline tick queues goes on in a drain on the pool.
     */
    @Test
    void aTickRunsOnTheCallingThreadOnlyWhileThePartitionIsIdle() {
        Queue<Runnable> pool = new ArrayDeque<>();
        SerialExecutor serial = new SerialExecutor(pool::add, "svc#0");
        List<String> ran = new ArrayList<>();

        serial.runNowOrQueue(() -> {
            assertThat(serial.inExecutor()).as("the tick owns the executor while it runs").isTrue();
            ran.add("tick");
            serial.execute(() -> ran.add("queued by the tick"));
        });
        assertThat(ran).as("the idle partition ticked at once, here").containsExactly("tick");
        assertThat(serial.inExecutor()).isFalse();
        assertThat(pool).as("one drain for what the tick queued").hasSize(1);
        runAll(pool);
        assertThat(ran).containsExactly("tick", "queued by the tick");
        assertThat(pool).as("nothing left: the executor is idle again").isEmpty();

        serial.execute(() -> ran.add("a peer's message"));
        serial.runNowOrQueue(() -> ran.add("second tick"));
        assertThat(ran).as("a busy partition's tick waits its turn").hasSize(2);
        runAll(pool);
        assertThat(ran).containsExactly("tick", "queued by the tick", "a peer's message", "second tick");

        serial.runNowOrQueue(() -> ran.add("third tick"));
        assertThat(ran).last().isEqualTo("third tick");
        assertThat(pool).as("an inline tick that queued nothing leaves no drain behind").isEmpty();
    }

    /** Runs the pool's queued work, and what that queues, on this thread. */
    private static void runAll(Queue<Runnable> pool) {
        for (Runnable task = pool.poll(); task != null; task = pool.poll()) {
            task.run();
        }
    }
}
