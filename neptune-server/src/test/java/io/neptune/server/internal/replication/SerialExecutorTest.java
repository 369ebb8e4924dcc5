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
