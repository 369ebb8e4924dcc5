package io.neptune.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The extension every test runs under sees what the tests' own assertions cannot. */
class BackgroundFailuresTest {
    @Test
    void aThreadThatDiesOfAnUncaughtExceptionFailsTheTest() throws InterruptedException {
        Thread dying = new Thread(() -> {
            throw new IllegalStateException("deliberately uncaught");
        }, "background-failures-test");
        dying.start();
        dying.join();
        assertThatThrownBy(() -> BackgroundFailures.check("the test")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 background failure(s) while the test ran")
                .hasMessageContaining("thread 'background-failures-test' died")
                .hasMessageContaining("IllegalStateException: deliberately uncaught");
        assertThatCode(() -> BackgroundFailures.check("the next test")).as("reported once").doesNotThrowAnyException();
    }

    @Test
    void aLeakedNettyBufferFailsTheTest() {
        leak();
        // Netty reports a leak when a later allocation finds the collected buffer's reference enqueued.
        AtomicReference<AssertionError> reported = new AtomicReference<>();
        Awaitility.await("Netty's leak report").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    System.gc();
                    PooledByteBufAllocator.DEFAULT.buffer(64).release();
                    try {
                        BackgroundFailures.check("the test");
                        return false;
                    } catch (AssertionError e) {
                        reported.set(e);
                        return true;
                    }
                });
        assertThatThrownBy(() -> {
            throw reported.get();
        }).hasMessageContaining("Netty LEAK: ByteBuf.release() was not called");
    }

    private static void leak() {
        ByteBuf buffer = PooledByteBufAllocator.DEFAULT.buffer(128);
        buffer.writeLong(42); // touched, then dropped without release()
    }
}
