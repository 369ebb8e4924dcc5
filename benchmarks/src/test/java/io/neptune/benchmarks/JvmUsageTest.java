package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JvmUsageTest {
    /** The overhead bench's wake-ups per call: a thread that sleeps and is woken 50 times counts at least 50. */
    @Test
    void countsTheWakeUpsOfAThreadThatSleeps() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
        CountDownLatch slept = new CountDownLatch(1);
        CountDownLatch measured = new CountDownLatch(1);
        Thread sleeper = new Thread(() -> {
            try {
                for (int i = 0; i < 50; i++) {
                    TimeUnit.MILLISECONDS.sleep(1);
                }
                slept.countDown();
                measured.await();   // alive at the second snapshot: an ended thread's switches leave with it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "sleeper");
        JvmUsage before = JvmUsage.now();
        sleeper.start();
        try {
            assertThat(slept.await(30, TimeUnit.SECONDS)).isTrue();
            JvmUsage after = JvmUsage.now();
            assertThat(after.switchesSince(before)).isGreaterThanOrEqualTo(50);
        } finally {
            measured.countDown();
            sleeper.join(TimeUnit.SECONDS.toMillis(30));
        }
    }
}
