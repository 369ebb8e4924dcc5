package io.neptune.client;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.Checks;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Per-call settings that override the client's defaults. Immutable; create with {@link #builder()}.
 */
public final class CallOptions {
    private static final CallOptions DEFAULTS = new CallOptions(null, null);

    private final @Nullable Duration timeout;
    private final @Nullable BalancingPolicy policy;

    private CallOptions(@Nullable Duration timeout, @Nullable BalancingPolicy policy) {
        this.timeout = timeout;
        this.policy = policy;
    }

    /** No overrides: the client's defaults apply. */
    public static CallOptions defaults() {
        return DEFAULTS;
    }

    /** Returns options with only the deadline set. */
    public static CallOptions timeout(Duration timeout) {
        return builder().timeout(timeout).build();
    }

    /** Returns a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The call's deadline, if overridden. */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /** The load-balancing policy, if overridden. */
    public Optional<BalancingPolicy> policy() {
        return Optional.ofNullable(policy);
    }

    @Override
    public String toString() {
        return "CallOptions[timeout=" + timeout + ", policy=" + policy + "]";
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private @Nullable Duration timeout;
        private @Nullable BalancingPolicy policy;

        private Builder() {}

        /** Sets the call's deadline, measured from the moment the call is made. */
        public Builder timeout(Duration timeout) {
            Checks.positive("timeout", timeout);
            this.timeout = timeout;
            return this;
        }

        /** Sets the load-balancing policy of this call. */
        public Builder policy(BalancingPolicy policy) {
            this.policy = requireNonNull(policy, "policy");
            return this;
        }

        /** Builds the options. */
        public CallOptions build() {
            return new CallOptions(timeout, policy);
        }
    }
}
