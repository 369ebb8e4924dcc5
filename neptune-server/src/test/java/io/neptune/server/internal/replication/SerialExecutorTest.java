package io.neptune.server.internal.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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
}
