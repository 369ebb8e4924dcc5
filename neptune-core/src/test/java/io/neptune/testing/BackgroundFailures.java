package io.neptune.testing;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when, while it ran, a thread of this JVM died of an uncaught exception or Netty
 * reported a leaked buffer: failures a test's own assertions never see. Registered for every test
 * of every module by JUnit's extension auto-detection ({@code META-INF/services} in this module's
 * test jar, {@code junit.jupiter.extensions.autodetection.enabled} in each module's
 * {@code junit-platform.properties}).
 *
 * <p>Netty reports a leak when the garbage collector has taken a buffer that was never released, at
 * a later allocation, so a leak may be charged to a test that runs after the one that leaked; the
 * report names where the buffer was last touched ({@code -Dio.netty.leakDetection.level=paranoid}
 * in the test JVMs tracks every buffer).
 *
 * <p>Thread-safety: the failure list is guarded by its own lock; reporting threads only append.
 */
public final class BackgroundFailures implements AfterEachCallback {
    private static final List<String> failures = new ArrayList<>();

    static {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
            record("thread '" + thread.getName() + "' died of an uncaught exception:\n" + stackTrace(error));
            if (previous != null) {
                previous.uncaughtException(thread, error);
            } else {
                System.err.print("Exception in thread \"" + thread.getName() + "\" " + stackTrace(error));
            }
        });
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingLeakDetectors());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(context.getDisplayName());
    }

    /**
     * Throws if a background failure was recorded since the last check, and forgets them.
     *
     * @param test what ran, for the message
     * @throws AssertionError naming each failure: the thread and its stack trace, or the leak's record
     */
    static void check(String test) {
        List<String> seen;
        synchronized (failures) {
            seen = List.copyOf(failures);
            failures.clear();
        }
        if (!seen.isEmpty()) {
            throw new AssertionError(seen.size() + " background failure(s) while " + test + " ran (or just before):\n"
                    + String.join("\n", seen));
        }
    }

    private static void record(String failure) {
        synchronized (failures) {
            failures.add(failure);
        }
    }

    private static String stackTrace(Throwable error) {
        StringWriter text = new StringWriter();
        error.printStackTrace(new PrintWriter(text));
        return text.toString();
    }

    /** Netty's detectors, each also recording what it reports. */
    private static final class RecordingLeakDetectors extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation") // the (Class, int, long) form is the one Netty calls
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                long maxActive) {
            return new ResourceLeakDetector<>(resource, samplingInterval) {
                @Override
                protected void reportTracedLeak(String resourceType, String records) {
                    record("Netty LEAK: " + resourceType + ".release() was not called before it was garbage-collected."
                            + records);
                    super.reportTracedLeak(resourceType, records);
                }

                @Override
                protected void reportUntracedLeak(String resourceType) {
                    record("Netty LEAK: " + resourceType + ".release() was not called before it was garbage-collected"
                            + " (not tracked: run with -Dio.netty.leakDetection.level=paranoid to see where)");
                    super.reportUntracedLeak(resourceType);
                }
            };
        }
    }
}
