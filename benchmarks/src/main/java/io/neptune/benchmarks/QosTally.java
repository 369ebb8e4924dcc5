package io.neptune.benchmarks;

import io.neptune.core.RequestDroppedException;
import io.neptune.core.YieldFunction;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * What the load generator of {@link QosExperiment} saw, per service class: each call's yield by the
 * class's yield function at the response time the generator measured (from the call's
 * <em>scheduled</em> send to its answer), 0 for a call that failed or was dropped, and LossPercent
 * (section 4.5.2) = (offered − realised) / offered, where the offered yield is every arrival's full
 * yield C. Counts only the calls scheduled in the recorded window, or every call when built with
 * {@code everyCall} (to cross-check against the node's own {@code ClassStats}, which count from the
 * start).
 *
 * <p>Thread-safety: thread-safe; calls end on client event loops.
 */
final class QosTally implements OpenLoopRun.Listener {
    private final List<YieldFunction> yields;
    private final long deadlineNanos;
    private final boolean everyCall;
    private final PerClass[] classes;

    /**
     * One class's figures.
     *
     * @param arrivals calls sent
     * @param answered calls answered successfully, in time or not
     * @param onTime calls answered within the class's deadline D
     * @param dropped calls the node dropped ({@link RequestDroppedException})
     * @param failed calls that failed otherwise (expired in the queue, timed out, ...)
     * @param offeredYield the sum of the arrivals' full yields
     * @param realizedYield the sum of the yields realised
     * @param meanResponseMillis mean response time of the answered calls (NaN if none)
     */
    record Figures(long arrivals, long answered, long onTime, long dropped, long failed, double offeredYield,
            double realizedYield, double meanResponseMillis) {
        /** LossPercent, 0 to 100; 0 when nothing was offered. */
        double lossPercent() {
            return offeredYield == 0 ? 0 : 100 * (offeredYield - realizedYield) / offeredYield;
        }

        /** The sum of two classes' figures (the response-time mean weighted by answers). */
        Figures plus(Figures o) {
            long n = answered + o.answered;
            double mean = n == 0 ? Double.NaN : (nan0(meanResponseMillis) * answered
                    + nan0(o.meanResponseMillis) * o.answered) / n;
            return new Figures(arrivals + o.arrivals, n, onTime + o.onTime, dropped + o.dropped, failed + o.failed,
                    offeredYield + o.offeredYield, realizedYield + o.realizedYield, mean);
        }

        private static double nan0(double x) {
            return Double.isNaN(x) ? 0 : x;
        }
    }

    /**
     * Creates a tally of classes with {@code yields} (indexed like {@link OpenLoopRun.Request#kind()});
     * a call counts as on time if answered within {@code deadlineNanos}.
     */
    QosTally(List<YieldFunction> yields, long deadlineNanos, boolean everyCall) {
        this.yields = List.copyOf(yields);
        this.deadlineNanos = deadlineNanos;
        this.everyCall = everyCall;
        this.classes = new PerClass[yields.size()];
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new PerClass();
        }
    }

    @Override
    public void ended(OpenLoopRun.Request request, long elapsedNanos, @Nullable Throwable error, boolean measured) {
        if (measured || everyCall) {
            record(request.kind(), elapsedNanos, error);
        }
    }

    /** Counts one call of class {@code kind}. */
    void record(int kind, long elapsedNanos, @Nullable Throwable error) {
        YieldFunction yield = yields.get(kind);
        PerClass c = classes[kind];
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        synchronized (c) {
            c.arrivals++;
            c.offered += yield.fullYield();
            if (cause == null) {
                c.answered++;
                c.responseNanos += elapsedNanos;
                c.realized += yield.yieldAt(elapsedNanos);
                if (elapsedNanos <= deadlineNanos) {
                    c.onTime++;
                }
            } else if (cause instanceof RequestDroppedException) {
                c.dropped++;
            } else {
                c.failed++;
            }
        }
    }

    /** The figures of class {@code kind}. */
    Figures of(int kind) {
        PerClass c = classes[kind];
        synchronized (c) {
            return new Figures(c.arrivals, c.answered, c.onTime, c.dropped, c.failed, c.offered, c.realized,
                    c.answered == 0 ? Double.NaN : c.responseNanos / 1e6 / c.answered);
        }
    }

    /** The figures of every class together. */
    Figures total() {
        Figures sum = new Figures(0, 0, 0, 0, 0, 0, 0, Double.NaN);
        for (int i = 0; i < classes.length; i++) {
            sum = sum.plus(of(i));
        }
        return sum;
    }

    /** Mutable counters of one class; guarded by itself. */
    private static final class PerClass {
        long arrivals;
        long answered;
        long onTime;
        long dropped;
        long failed;
        long responseNanos;
        double offered;
        double realized;
    }
}
