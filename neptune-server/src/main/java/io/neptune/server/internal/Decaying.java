package io.neptune.server.internal;

/**
 * A sum whose terms lose weight by a factor β per second since they were added: u_k(t) of the
 * dissertation's equation 4.4.3, for {@link ClassAwareScheduler}.
 *
 * <p>Thread-safety: not thread-safe; the scheduler's lock guards it.
 */
final class Decaying {
    private final double beta;
    private double value;
    private long stamp;
    private boolean empty = true;

    Decaying(double beta) {
        this.beta = beta;
    }

    double at(long now) {
        return empty ? 0 : value * Math.pow(beta, (now - stamp) / 1e9);
    }

    void add(long now, double x) {
        value = at(now) + x;
        stamp = now;
        empty = false;
    }
}
