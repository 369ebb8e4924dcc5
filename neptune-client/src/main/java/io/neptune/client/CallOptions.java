package io.neptune.client;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ServiceClass;
import io.neptune.core.internal.Checks;
import io.neptune.core.internal.wire.RequestId;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Per-call settings that override the client's defaults. Immutable; create with {@link #builder()}.
 */
public final class CallOptions {
    private static final CallOptions DEFAULTS = new CallOptions(null, null, null, null);

    private final @Nullable Duration timeout;
    private final @Nullable BalancingPolicy policy;
    private final @Nullable String requestId;
    private final @Nullable String serviceClass;

    private CallOptions(@Nullable Duration timeout, @Nullable BalancingPolicy policy, @Nullable String requestId,
            @Nullable String serviceClass) {
        this.timeout = timeout;
        this.policy = policy;
        this.requestId = requestId;
        this.serviceClass = serviceClass;
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

    /** The request id a write is sent with, if set (else a fresh one is drawn per call). */
    public Optional<String> requestId() {
        return Optional.ofNullable(requestId);
    }

    /** The service class of the call, if set (else {@value ServiceClass#DEFAULT_NAME}). */
    public Optional<String> serviceClass() {
        return Optional.ofNullable(serviceClass);
    }

    /** Returns options with only the service class set. */
    public static CallOptions serviceClass(String serviceClass) {
        return builder().serviceClass(serviceClass).build();
    }

    /** Returns a builder that starts from these options. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.timeout = timeout;
        builder.policy = policy;
        builder.requestId = requestId;
        builder.serviceClass = serviceClass;
        return builder;
    }

    @Override
    public String toString() {
        return "CallOptions[timeout=" + timeout + ", policy=" + policy + ", requestId=" + requestId + ", serviceClass="
                + serviceClass + "]";
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private @Nullable Duration timeout;
        private @Nullable BalancingPolicy policy;
        private @Nullable String requestId;
        private @Nullable String serviceClass;

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

        /**
         * Sends a write with this request id instead of a fresh one: the way to retry a write whose
         * outcome is unknown ({@link io.neptune.core.OutcomeUnknownException#requestId()}) with the
         * same method, partition and request. The replicas run a write at most once per id (within
         * their window of recent ids), so a retry never runs it twice; reusing an id for a different
         * write would instead be answered with the first write's response. Ignored for reads.
         *
         * @throws IllegalArgumentException if {@code requestId} is not 32 hex digits, or is all zeros
         */
        public Builder requestId(String requestId) {
            requireNonNull(requestId, "requestId");
            this.requestId = RequestId.parse(requestId).toString();
            return this;
        }

        /**
         * Sends the call in this service class (dissertation chapter 4): the node queues it with its
         * class, schedules it by the class's yield function and guaranteed share, and drops it
         * ({@link io.neptune.core.RequestDroppedException}) once it can no longer finish within the
         * class's deadline, which also ends the call early when it is shorter than the call's own
         * deadline. A class the node does not declare fails the call with
         * {@link io.neptune.core.UnknownServiceClassException}.
         *
         * @throws IllegalArgumentException if {@code serviceClass} is not a valid class name
         */
        public Builder serviceClass(String serviceClass) {
            requireNonNull(serviceClass, "serviceClass");
            ServiceClass.checkName(serviceClass);
            this.serviceClass = serviceClass;
            return this;
        }

        /** Builds the options. */
        public CallOptions build() {
            return new CallOptions(timeout, policy, requestId, serviceClass);
        }
    }
}
