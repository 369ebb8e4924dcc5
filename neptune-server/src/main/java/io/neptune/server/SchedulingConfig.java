package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Principal;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * How a node schedules the requests queued for each hosted service (dissertation chapter 4,
 * section 4.4): its service classes, each with a yield function and an optional guaranteed share of
 * the workers' time, and the policy that orders the rest. Each hosted service's workers are
 * scheduled by these rules on their own. Immutable; create with {@link #builder()}.
 *
 * @param policy how to choose among the classes once the guarantees are met; {@link SchedulingPolicy#FIFO}
 *     (the default) queues every request in arrival order and drops none, as a node without classes does
 * @param classes the declared classes by name, in declaration order; always includes
 *     {@value ServiceClass#DEFAULT_NAME} (the class of requests that name none), declared or not
 * @param adaptiveDropThreshold the fraction of arrivals dropped within {@code adaptiveWindow} above
 *     which {@link SchedulingPolicy#ADAPTIVE} switches from YID to Greedy
 * @param adaptiveWindow how far back {@link SchedulingPolicy#ADAPTIVE} counts arrivals and drops
 * @param dropBelow a queued request is dropped once its expected yield falls to this fraction of its
 *     class's full yield or below (0: only when it is expected to miss its deadline)
 * @param decay β of equation 4.4.3: the weight, per second of age, of a completed request in a class's
 *     recent resource use (and in the expected service time and cost); 0.95 as in the dissertation.
 *     Smaller forgets faster: an experiment that scales time down by 10 scales β to 0.95^10
 * @param callerClasses the class each caller is bound to, whatever class its calls name (docs/SECURITY.md,
 *     "Service classes by identity"): keyed by a principal's URI ({@code neptune://client/batch}) or by a
 *     role name ({@code node}, {@code operator}, {@code client}, or {@code anonymous} for a TLS caller
 *     without a certificate); the URI wins over the role. Callers on plaintext connections are not bound
 */
public record SchedulingConfig(SchedulingPolicy policy, Map<String, ServiceClass> classes,
        double adaptiveDropThreshold, Duration adaptiveWindow, double dropBelow, double decay,
        Map<String, String> callerClasses) {

    /** The key of {@link #callerClasses()} that binds TLS callers without a certificate. */
    public static final String ANONYMOUS = "anonymous";

    /** Default of {@link #adaptiveDropThreshold()}: 5%, as in the dissertation. */
    public static final double DEFAULT_ADAPTIVE_DROP_THRESHOLD = 0.05;
    /** Default of {@link #adaptiveWindow()}: 30 s, as in the dissertation. */
    public static final Duration DEFAULT_ADAPTIVE_WINDOW = Duration.ofSeconds(30);
    /** Default of {@link #dropBelow()}: 1% of the full yield. */
    public static final double DEFAULT_DROP_BELOW = 0.01;
    /** Default of {@link #decay()}: the dissertation's β, 0.95 per second. */
    public static final double DEFAULT_DECAY = 0.95;

    private static final SchedulingConfig DEFAULTS = builder().build();

    /** Validates the fields; the messages name what is wrong. */
    public SchedulingConfig {
        requireNonNull(policy, "policy");
        classes = Map.copyOf(requireNonNull(classes, "classes")); // order: see classList()
        if (!classes.containsKey(ServiceClass.DEFAULT_NAME)) {
            throw new IllegalArgumentException("classes: no '" + ServiceClass.DEFAULT_NAME + "' class");
        }
        double shares = 0;
        for (Map.Entry<String, ServiceClass> e : classes.entrySet()) {
            if (!e.getKey().equals(e.getValue().name())) {
                throw new IllegalArgumentException("classes: key '" + e.getKey() + "' holds class '"
                        + e.getValue().name() + "'");
            }
            shares += e.getValue().guaranteedShare();
        }
        if (shares > 1 + 1e-9) {
            throw new IllegalArgumentException("classes: guaranteed shares sum to " + shares
                    + " (expected: at most 1, the whole of the workers' time)");
        }
        if (!(adaptiveDropThreshold > 0 && adaptiveDropThreshold < 1)) {
            throw new IllegalArgumentException("adaptiveDropThreshold: " + adaptiveDropThreshold
                    + " (expected: a fraction between 0 and 1)");
        }
        Checks.positive("adaptiveWindow", adaptiveWindow);
        if (!(dropBelow >= 0 && dropBelow < 1)) {
            throw new IllegalArgumentException("dropBelow: " + dropBelow + " (expected: a fraction from 0 to below 1)");
        }
        if (!(decay > 0 && decay < 1)) {
            throw new IllegalArgumentException("decay: " + decay + " (expected: a weight per second between 0 and 1)");
        }
        callerClasses = Map.copyOf(requireNonNull(callerClasses, "callerClasses"));
        for (Map.Entry<String, String> e : callerClasses.entrySet()) {
            checkCaller(e.getKey());
            if (!classes.containsKey(e.getValue())) {
                throw new IllegalArgumentException("callerClasses: '" + e.getKey() + "' bound to class '" + e.getValue()
                        + "' (expected: a declared class, one of " + new TreeSet<>(classes.keySet()) + ")");
            }
        }
    }

    private static void checkCaller(String caller) {
        boolean role = caller.equals(ANONYMOUS) || Arrays.stream(Principal.Role.values())
                .anyMatch(r -> r.name().toLowerCase(Locale.ROOT).equals(caller));
        if (!role && Principal.fromUri(caller).isEmpty()) {
            throw new IllegalArgumentException("callerClasses: '" + caller + "' (expected: a principal URI such as"
                    + " neptune://client/batch, or a role: node, operator, client, " + ANONYMOUS + ")");
        }
    }

    /** FIFO with only the default class: what a node does unless told otherwise. */
    public static SchedulingConfig defaults() {
        return DEFAULTS;
    }

    /**
     * Whether this is FIFO with no class but the built-in default one: a node then keeps a plain
     * FIFO queue without per-class accounting, as before service classes existed.
     */
    public boolean plainFifo() {
        return policy == SchedulingPolicy.FIFO && classes.size() == 1
                && ServiceClass.defaultClass().equals(classes.get(ServiceClass.DEFAULT_NAME));
    }

    /** The classes sorted by name (a stable order for queues, reports and tests). */
    public List<ServiceClass> classList() {
        List<ServiceClass> list = new ArrayList<>(classes.values());
        list.sort((a, b) -> a.name().compareTo(b.name()));
        return list;
    }

    /** Returns a builder initialised from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder().policy(policy).adaptiveDropThreshold(adaptiveDropThreshold)
                .adaptiveWindow(adaptiveWindow).dropBelow(dropBelow).decay(decay);
        b.classes.putAll(classes);
        b.callerClasses.putAll(callerClasses);
        return b;
    }

    /** Returns a builder with every default set and no class but the default one. */
    public static Builder builder() {
        return new Builder();
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private SchedulingPolicy policy = SchedulingPolicy.FIFO;
        private final Map<String, ServiceClass> classes = new LinkedHashMap<>();
        private final Map<String, String> callerClasses = new LinkedHashMap<>();
        private double adaptiveDropThreshold = DEFAULT_ADAPTIVE_DROP_THRESHOLD;
        private Duration adaptiveWindow = DEFAULT_ADAPTIVE_WINDOW;
        private double dropBelow = DEFAULT_DROP_BELOW;
        private double decay = DEFAULT_DECAY;

        private Builder() {}

        /** Sets {@link SchedulingConfig#decay()}. */
        public Builder decay(double decay) {
            this.decay = decay;
            return this;
        }

        /** Sets the policy. */
        public Builder policy(SchedulingPolicy policy) {
            this.policy = requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Declares a class; declaring {@value ServiceClass#DEFAULT_NAME} replaces the built-in one.
         *
         * @throws IllegalArgumentException if a class of that name was declared already
         */
        public Builder serviceClass(ServiceClass serviceClass) {
            requireNonNull(serviceClass, "serviceClass");
            if (classes.containsKey(serviceClass.name())) {
                throw new IllegalArgumentException("classes: '" + serviceClass.name() + "' declared twice");
            }
            classes.put(serviceClass.name(), serviceClass);
            return this;
        }

        /**
         * Binds {@code caller} (a principal URI, or a role name: see {@link SchedulingConfig#callerClasses()})
         * to class {@code className}: its calls run in that class whatever class they name.
         *
         * @throws IllegalArgumentException if {@code caller} is bound already
         */
        public Builder bindCaller(String caller, String className) {
            requireNonNull(caller, "caller");
            requireNonNull(className, "className");
            if (callerClasses.containsKey(caller)) {
                throw new IllegalArgumentException("callerClasses: '" + caller + "' bound to '"
                        + callerClasses.get(caller) + "' and to '" + className + "' (expected: one class per caller)");
            }
            callerClasses.put(caller, className);
            return this;
        }

        /** Sets {@link SchedulingConfig#adaptiveDropThreshold()}. */
        public Builder adaptiveDropThreshold(double fraction) {
            this.adaptiveDropThreshold = fraction;
            return this;
        }

        /** Sets {@link SchedulingConfig#adaptiveWindow()}. */
        public Builder adaptiveWindow(Duration window) {
            this.adaptiveWindow = requireNonNull(window, "window");
            return this;
        }

        /** Sets {@link SchedulingConfig#dropBelow()}. */
        public Builder dropBelow(double fraction) {
            this.dropBelow = fraction;
            return this;
        }

        /** Builds the configuration, adding the built-in default class unless one was declared. */
        public SchedulingConfig build() {
            Map<String, ServiceClass> all = new LinkedHashMap<>(classes);
            all.putIfAbsent(ServiceClass.DEFAULT_NAME, ServiceClass.defaultClass());
            return new SchedulingConfig(policy, all, adaptiveDropThreshold, adaptiveWindow, dropBelow, decay,
                    callerClasses);
        }
    }
}
