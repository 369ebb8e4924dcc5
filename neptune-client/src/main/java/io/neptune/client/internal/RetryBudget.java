package io.neptune.client.internal;

import io.neptune.client.ClientConfig;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client's retry budget: gRPC's retry throttling (gRPC proposal
 * <a href="https://github.com/grpc/proposal/blob/master/A6-client-retries.md">A6, "gRPC Retry Design"</a>,
 * section "Throttling Retry Attempts and Hedged RPCs"). A bucket holds up to {@code maxTokens} tokens and
 * starts full; every attempt that fails in a way that counts ({@link #failed}) takes one token, every
 * answered attempt ({@link #succeeded}) puts back {@code tokenRatio} of one, and a call may retry (or
 * hedge) only while more than half of {@code maxTokens} are left. First attempts are never held back.
 *
 * <p>So retries stop once more than about {@code tokenRatio / (1 + tokenRatio)} of recent attempts
 * fail (1 in 11 at a ratio of 0.1), and come back as answers refill the bucket: while a node or the
 * whole cluster fails, a client adds at most about {@code tokenRatio} retries per answered call to the
 * load, instead of multiplying every call by its retries. Half the bucket is the burst of failures
 * a healthy client absorbs at once (the calls in flight on a node that dies) before it throttles.
 * Tokens are counted in thousandths, as gRPC does, so the bucket is one atomic number.
 *
 * <p>Thread-safety: thread-safe and lock-free.
 */
final class RetryBudget {
    private static final long MILLI = 1000;

    private final long maxMillis;
    private final long refundMillis;
    private final AtomicLong millis;

    /**
     * A bucket of {@code maxTokens} tokens (0: no budget, every retry allowed) that each answered
     * attempt refills by {@code tokenRatio} (from 0, exclusive, to 1).
     */
    RetryBudget(int maxTokens, double tokenRatio) {
        if (maxTokens < 0 || !(tokenRatio > 0 && tokenRatio <= 1)) {
            throw new IllegalArgumentException("retry budget: " + maxTokens + " tokens, token ratio " + tokenRatio
                    + " (expected: tokens >= 0, 0 < ratio <= 1)");
        }
        this.maxMillis = maxTokens * MILLI;
        this.refundMillis = Math.max(1, Math.round(tokenRatio * MILLI));
        this.millis = new AtomicLong(maxMillis);
    }

    /** The budget {@code config} sets. */
    static RetryBudget of(ClientConfig config) {
        return new RetryBudget(config.retryBudgetTokens(), config.retryBudgetTokenRatio());
    }

    /** Whether there is a budget at all ({@code retry-budget-tokens} above 0). */
    boolean isEnabled() {
        return maxMillis > 0;
    }

    /** Whether a call may retry (or hedge) now: more than half the tokens are left, or there is no budget. */
    boolean allowsRetry() {
        return maxMillis == 0 || millis.get() * 2 > maxMillis;
    }

    /** An attempt failed in a way that counts against the budget: one token less (none below 0). */
    void failed() {
        if (maxMillis > 0) {
            millis.updateAndGet(m -> Math.max(0, m - MILLI));
        }
    }

    /** An attempt was answered: the bucket gains {@code tokenRatio} of a token (none above the maximum). */
    void succeeded() {
        if (maxMillis > 0 && millis.get() < maxMillis) { // full, the usual case: no write at all
            millis.updateAndGet(m -> Math.min(maxMillis, m + refundMillis));
        }
    }

    /** The tokens left; a gauge. */
    double tokens() {
        return millis.get() / (double) MILLI;
    }

    @Override
    public String toString() {
        return isEnabled() ? "RetryBudget[" + tokens() + " of " + maxMillis / MILLI + " tokens]" : "RetryBudget[off]";
    }
}
