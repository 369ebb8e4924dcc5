package io.neptune.benchmarks;

import java.util.Random;

/**
 * The three workloads of the dissertation's chapter 3. Service times and arrival intervals are
 * gamma distributed with the mean and standard deviation of Table 3.1 (the traces themselves are
 * not public); Poisson/Exp is the special case of shape 1 (exponential) for both. Arrival
 * intervals keep the trace's coefficient of variation and are scaled to the rate of the load level.
 */
enum Workload {
    /** Poisson arrivals, exponential service times with a 50 ms mean. */
    POISSON_EXP("Poisson/Exp", 50.0, 50.0, 1.0),
    /** The Fine-Grain trace: service 22.2 ± 10.0 ms, arrival intervals 436.7 ± 349.4 ms before scaling. */
    FINE_GRAIN("Fine-Grain", 22.2, 10.0, 349.4 / 436.7),
    /** The Medium-Grain trace: service 208.9 ± 62.9 ms, arrival intervals 341.5 ± 321.1 ms before scaling. */
    MEDIUM_GRAIN("Medium-Grain", 208.9, 62.9, 321.1 / 341.5);

    private final String label;
    private final double meanServiceMillis;
    private final double serviceShape;
    private final double arrivalShape;

    Workload(String label, double meanServiceMillis, double sdServiceMillis, double arrivalCv) {
        this.label = label;
        this.meanServiceMillis = meanServiceMillis;
        this.serviceShape = square(meanServiceMillis / sdServiceMillis);
        this.arrivalShape = 1 / square(arrivalCv);
    }

    /** The name used in the dissertation and in the reports. */
    String label() {
        return label;
    }

    /** The mean service time in milliseconds. */
    double meanServiceMillis() {
        return meanServiceMillis;
    }

    /** Requests per second that keep {@code servers × workers} workers busy a fraction {@code load} of the time. */
    double rate(double load, int servers, int workers) {
        return load * servers * workers / (meanServiceMillis / 1000.0);
    }

    /** Draws one service time in microseconds. */
    long serviceMicros(Random random) {
        return Math.round(gamma(random, serviceShape, meanServiceMillis * 1000.0 / serviceShape));
    }

    /** Draws one arrival interval in nanoseconds for an aggregate rate of {@code perSecond}. */
    long arrivalNanos(Random random, double perSecond) {
        double mean = 1e9 / perSecond;
        return Math.max(1, Math.round(gamma(random, arrivalShape, mean / arrivalShape)));
    }

    /** A gamma variate (Marsaglia and Tsang, 2000); shape below 1 by the usual boost. */
    static double gamma(Random random, double shape, double scale) {
        if (shape < 1) {
            return gamma(random, shape + 1, scale) * Math.pow(random.nextDouble(), 1 / shape);
        }
        double d = shape - 1.0 / 3;
        double c = 1 / Math.sqrt(9 * d);
        while (true) {
            double x = random.nextGaussian();
            double v = 1 + c * x;
            if (v <= 0) {
                continue;
            }
            v = v * v * v;
            double u = random.nextDouble();
            if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) {
                return d * v * scale;
            }
        }
    }

    private static double square(double x) {
        return x * x;
    }
}
