package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * What serving one request of a service class is worth, as a function of its response time
 * (dissertation section 4.2.1): a non-negative, monotonically non-increasing function that is zero
 * after the class's deadline. The node scheduler maximises the sum of the yields it realises and
 * drops a queued request whose expected yield has fallen to (near) zero.
 *
 * <p>The three forms of the dissertation are {@link #throughput}, {@link #resptime} and
 * {@link #hybrid}; a service provider may implement its own, which {@link #check} validates when
 * the class is declared.
 *
 * <p>Thread-safety: implementations must be immutable; the scheduler calls them from any thread.
 */
public interface YieldFunction {
    /** The yield of a request answered {@code responseNanos} after it arrived; 0 after {@link #deadline()}. */
    double yieldAt(long responseNanos);

    /** D: the response time after which the request yields nothing (the caller has given up). */
    Duration deadline();

    /** C: the yield of an immediate answer, {@code yieldAt(0)}. */
    default double fullYield() {
        return yieldAt(0);
    }

    /**
     * Equation 4.2.2: {@code c} for every request answered within {@code deadline}, 0 after; a system
     * with this yield maximises the number of requests it answers in time.
     */
    static YieldFunction throughput(double c, Duration deadline) {
        return new Piecewise("throughput", c, deadline, c, deadline);
    }

    /**
     * Equation 4.2.3: {@code c(1 - r/D)}, falling from {@code c} at once to 0 at the deadline; a system
     * with this yield minimises mean response time, counting a dropped request as answered at D.
     */
    static YieldFunction resptime(double c, Duration deadline) {
        return new Piecewise("resptime", c, Duration.ZERO, 0, deadline);
    }

    /**
     * Equation 4.2.4: {@code c} until the pre-deadline D', then falling linearly to the drop penalty
     * C' at the deadline D, 0 after. {@code throughput} is the case D' = D, {@code resptime} the case
     * D' = 0 and C' = 0.
     *
     * @param c the full yield C
     * @param preDeadline D', at most {@code deadline}
     * @param dropPenalty C', at most {@code c}
     * @param deadline D
     */
    static YieldFunction hybrid(double c, Duration preDeadline, double dropPenalty, Duration deadline) {
        return new Piecewise("hybrid", c, preDeadline, dropPenalty, deadline);
    }

    /**
     * Checks that {@code function} is a yield function: finite, non-negative, monotonically
     * non-increasing on [0, 2D] (sampled at 1,001 points) with a positive full yield and a positive
     * deadline. Throws an {@link IllegalArgumentException} naming {@code what} and the first response
     * time that breaks a rule.
     */
    static YieldFunction check(String what, YieldFunction function) {
        requireNonNull(function, what);
        Duration deadline = requireNonNull(function.deadline(), what + ".deadline()");
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException(what + ": deadline " + deadline + " (expected: > 0)");
        }
        double full = function.fullYield();
        if (!(full > 0) || Double.isInfinite(full)) {
            throw new IllegalArgumentException(what + ": full yield " + full + " (expected: a positive number)");
        }
        long span = deadline.toNanos() > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * deadline.toNanos();
        double previous = Double.POSITIVE_INFINITY;
        for (int i = 0; i <= 1000; i++) {
            long r = (long) (span / 1000.0 * i);
            double y = function.yieldAt(r);
            if (!(y >= 0) || Double.isInfinite(y)) {
                throw new IllegalArgumentException(what + ": yield " + y + " at " + Duration.ofNanos(r)
                        + " (expected: a non-negative number)");
            }
            if (y > previous) {
                throw new IllegalArgumentException(what + ": yield rises from " + previous + " to " + y + " at "
                        + Duration.ofNanos(r) + " (expected: a non-increasing function of the response time)");
            }
            previous = y;
        }
        return function;
    }

    /**
     * The dissertation's three forms as one piecewise-linear function: {@code c} up to
     * {@code preDeadline}, then linear down to {@code atDeadline} at {@code deadline}, 0 after.
     */
    record Piecewise(String form, double c, Duration preDeadline, double atDeadline, Duration deadline)
            implements YieldFunction {
        /** Validates the parameters; the message names the one that is wrong. */
        public Piecewise {
            requireNonNull(form, "form");
            requireNonNull(preDeadline, "preDeadline");
            requireNonNull(deadline, "deadline");
            if (!(c > 0) || Double.isInfinite(c)) {
                throw new IllegalArgumentException(form + ": full yield C = " + c + " (expected: a positive number)");
            }
            if (deadline.isNegative() || deadline.isZero()) {
                throw new IllegalArgumentException(form + ": deadline D = " + deadline + " (expected: > 0)");
            }
            if (preDeadline.isNegative() || preDeadline.compareTo(deadline) > 0) {
                throw new IllegalArgumentException(form + ": pre-deadline D' = " + preDeadline + " (expected: 0 to D = "
                        + deadline + ")");
            }
            if (!(atDeadline >= 0) || atDeadline > c) {
                throw new IllegalArgumentException(form + ": drop penalty C' = " + atDeadline + " (expected: 0 to C = "
                        + c + ")");
            }
        }

        @Override
        public double yieldAt(long responseNanos) {
            long pre = preDeadline.toNanos();
            long d = deadline.toNanos();
            if (responseNanos <= pre) {
                return c;
            }
            if (responseNanos > d) {
                return 0;
            }
            return c - (c - atDeadline) * ((double) (responseNanos - pre) / (d - pre));
        }

        @Override
        public double fullYield() {
            return c;
        }

        @Override
        public String toString() {
            return switch (form) {
                case "throughput" -> "throughput(C=" + c + ", D=" + deadline + ")";
                case "resptime" -> "resptime(C=" + c + ", D=" + deadline + ")";
                default -> "hybrid(C=" + c + ", D'=" + preDeadline + ", C'=" + atDeadline + ", D=" + deadline + ")";
            };
        }
    }
}
