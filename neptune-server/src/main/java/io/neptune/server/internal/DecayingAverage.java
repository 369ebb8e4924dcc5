package io.neptune.server.internal;

/**
 * A time-decayed mean: recent samples weigh more; 0 before the first. For
 * {@link ClassAwareScheduler}'s expected service time and resource use.
 *
 * <p>Thread-safety: not thread-safe; the scheduler's lock guards it.
 */
final class DecayingAverage {
    private final Decaying sum;
    private final Decaying weight;

    DecayingAverage(double beta) {
        this.sum = new Decaying(beta);
        this.weight = new Decaying(beta);
    }

    double average(long now) {
        double w = weight.at(now);
        return w > 0 ? sum.at(now) / w : 0;
    }

    void add(long now, double x) {
        sum.add(now, x);
        weight.add(now, 1);
    }
}
