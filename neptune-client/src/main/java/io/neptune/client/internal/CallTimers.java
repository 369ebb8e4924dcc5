package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The latency timers of calls, one per service, method and outcome, with a fixed set of histogram
 * buckets that Prometheus's {@code histogram_quantile} reads: the client's {@code neptune.client.calls}
 * and the server's {@code neptune.server.calls}. The tags are bounded by the services' method names
 * and a fixed set of outcomes; never by request, key or partition.
 *
 * <p>Thread-safety: thread-safe and lock-free once a timer exists (a map lookup and an atomic add).
 */
public final class CallTimers {
    /** The histogram buckets: from half a millisecond to half a minute. */
    static final Duration[] BUCKETS = {
        Duration.ofMillis(1).dividedBy(2), Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
        Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
        Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
        Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};

    private final MeterRegistry registry;
    private final String name;
    private final String description;
    /** Service, then method, then outcome: looked up without building a key per call. */
    private final Map<String, Map<String, Map<String, Timer>>> timers = new ConcurrentHashMap<>();

    /** Creates the timers named {@code name} in {@code registry}. */
    public CallTimers(MeterRegistry registry, String name, String description) {
        this.registry = requireNonNull(registry, "registry");
        this.name = requireNonNull(name, "name");
        this.description = requireNonNull(description, "description");
    }

    /** Records one call of {@code service.method} that ended with {@code outcome} after {@code nanos}. */
    public void record(String service, String method, String outcome, long nanos) {
        Map<String, Map<String, Timer>> methods = timers.get(service);
        Map<String, Timer> outcomes = methods == null ? null : methods.get(method);
        Timer timer = outcomes == null ? null : outcomes.get(outcome);
        if (timer == null) {
            timer = timers.computeIfAbsent(service, s -> new ConcurrentHashMap<>())
                    .computeIfAbsent(method, m -> new ConcurrentHashMap<>())
                    .computeIfAbsent(outcome, o -> Timer.builder(name).description(description)
                            .tags("service", service, "method", method, "outcome", outcome)
                            .serviceLevelObjectives(BUCKETS).register(registry));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }
}
