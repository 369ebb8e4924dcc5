package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * The two services of the dissertation's section 4.5.1 as request generators for
 * {@link QosExperiment}, with every time divided by {@link #SCALE} so that a run fits this machine:
 * <ul>
 *   <li>{@link #MICRO}, the Micro-benchmark: gold, silver and bronze with mean service times
 *       400/200/100 ms (here 40/20/10 ms), exponentially distributed, Poisson arrivals, and (our
 *       choice; the dissertation does not say) the same arrival rate for each class;
 *   <li>{@link #SEARCH}, Differentiated Search: 10%, 30% and 60% of the requests, arrival intervals
 *       and service times with the means and standard deviations of Table 4.2 (the Ask Jeeves
 *       traces are not public), drawn from gamma distributions matched by mean and standard
 *       deviation; each class's intervals keep its trace's coefficient of variation and are scaled
 *       to the class's share of the demanded rate.
 * </ul>
 * Every class has the same yield shape with full yields 4:2:1 and D = 2 s (here 200 ms); the hybrid
 * form has D' = D/2 and C' = C/2.
 *
 * <p>Immutable; {@link #arrivals} returns a stateful, single-threaded source.
 */
enum QosWorkload {
    /** Micro-benchmark (Figure 4.8). */
    MICRO("Micro-benchmark", List.of(
            new Spec("gold", 4, 1.0 / 3, 400, 400, 1),
            new Spec("silver", 2, 1.0 / 3, 200, 200, 1),
            new Spec("bronze", 1, 1.0 / 3, 100, 100, 1))),
    /** Differentiated Search (Figure 4.9), Table 4.2's statistics. */
    SEARCH("Differentiated Search", List.of(
            new Spec("gold", 4, 0.1, 247.9, 218.2, 164.3 / 161.3),
            new Spec("silver", 2, 0.3, 249.7, 219.3, 169.5 / 166.0),
            new Spec("bronze", 1, 0.6, 245.1, 215.7, 164.7 / 161.3)));

    /** The dissertation's times are divided by this. */
    static final int SCALE = 10;
    /** D: 2 s in the dissertation. */
    static final Duration DEADLINE = Duration.ofSeconds(2).dividedBy(SCALE);

    private final String label;
    private final List<Spec> classes;

    /**
     * One class as the dissertation gives it (unscaled).
     *
     * @param name the class name
     * @param fullYield C
     * @param share the fraction of all requests in this class
     * @param serviceMillis mean service time
     * @param serviceSdMillis its standard deviation
     * @param arrivalCv the coefficient of variation of the class's arrival intervals (1: Poisson)
     */
    record Spec(String name, double fullYield, double share, double serviceMillis, double serviceSdMillis,
            double arrivalCv) {
        /** Scaled mean service time in microseconds. */
        double meanServiceMicros() {
            return serviceMillis * 1000 / SCALE;
        }

        double serviceShape() {
            return square(serviceMillis / serviceSdMillis);
        }

        double arrivalShape() {
            return 1 / square(arrivalCv);
        }
    }

    /** The three yield forms of section 4.2.1. */
    enum Form {
        /** Equation 4.2.2. */
        THROUGHPUT,
        /** Equation 4.2.3. */
        RESPTIME,
        /** Equation 4.2.4 with D' = D/2 and C' = C/2. */
        HYBRID;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        YieldFunction yield(double c) {
            return switch (this) {
                case THROUGHPUT -> YieldFunction.throughput(c, DEADLINE);
                case RESPTIME -> YieldFunction.resptime(c, DEADLINE);
                case HYBRID -> YieldFunction.hybrid(c, DEADLINE.dividedBy(2), c / 2, DEADLINE);
            };
        }
    }

    QosWorkload(String label, List<Spec> classes) {
        this.label = label;
        this.classes = classes;
    }

    String label() {
        return label;
    }

    List<Spec> classes() {
        return classes;
    }

    /** The service classes a node declares for this workload in {@code form}, in {@link #classes()} order. */
    List<ServiceClass> serviceClasses(Form form) {
        return classes.stream().map(c -> ServiceClass.of(c.name(), form.yield(c.fullYield()))).toList();
    }

    /** The mean (scaled) service time over the request mix, in milliseconds. */
    double meanServiceMillis() {
        return classes.stream().mapToDouble(c -> c.share() * c.meanServiceMicros() / 1000).sum();
    }

    /** Requests per second that would keep {@code workers} busy all the time, ignoring every overhead. */
    double capacity(int workers) {
        return workers * 1000 / meanServiceMillis();
    }

    /**
     * A new source of calls at {@code rate} requests per second over all classes; a call's
     * {@link OpenLoopRun.Request#kind()} is its class's index in {@link #classes()}.
     */
    OpenLoopRun.Arrivals arrivals(double rate) {
        return arrivals(rate, BalancingPolicy.RANDOM);
    }

    /** As {@link #arrivals(double)}, the calls distributed by {@code policy}. */
    OpenLoopRun.Arrivals arrivals(double rate, BalancingPolicy policy) {
        return new Superposed(this, rate, policy);
    }

    /** The call options of class {@code index}, distributed by {@code policy}. */
    CallOptions options(int index, BalancingPolicy policy) {
        return CallOptions.builder().serviceClass(classes.get(index).name()).policy(policy)
                .timeout(DEADLINE.multipliedBy(10)).build();
    }

    private static double square(double x) {
        return x * x;
    }

    /**
     * Each class's own renewal process (gamma intervals at its share of the rate), merged in time
     * order. Not thread-safe: one generator thread.
     */
    private static final class Superposed implements OpenLoopRun.Arrivals {
        private final QosWorkload workload;
        private final double rate;
        private final CallOptions[] options;
        /** Each class's next arrival, in nanoseconds from the start; NaN before the first draw. */
        private final double[] next;
        private double last;

        Superposed(QosWorkload workload, double rate, BalancingPolicy policy) {
            if (!(rate > 0)) {
                throw new IllegalArgumentException("rate: " + rate + " (expected: > 0)");
            }
            this.workload = workload;
            this.rate = rate;
            int n = workload.classes.size();
            this.options = new CallOptions[n];
            this.next = new double[n];
            for (int i = 0; i < n; i++) {
                options[i] = workload.options(i, policy);
                next[i] = Double.NaN;
            }
        }

        @Override
        public OpenLoopRun.Request next(Random random) {
            if (Double.isNaN(next[0])) {
                for (int i = 0; i < next.length; i++) {
                    next[i] = interval(random, i);
                }
            }
            int k = 0;
            for (int i = 1; i < next.length; i++) {
                if (next[i] < next[k]) {
                    k = i;
                }
            }
            double at = next[k];
            long gap = Math.round(at) - Math.round(last);
            last = at;
            Spec spec = workload.classes.get(k);
            long micros = Math.round(Workload.gamma(random, spec.serviceShape(),
                    spec.meanServiceMicros() / spec.serviceShape()));
            next[k] = at + interval(random, k);
            return new OpenLoopRun.Request(gap, micros, options[k], k);
        }

        private double interval(Random random, int i) {
            Spec spec = workload.classes.get(i);
            double mean = 1e9 / (rate * spec.share());
            return Math.max(1, Workload.gamma(random, spec.arrivalShape(), mean / spec.arrivalShape()));
        }
    }
}
