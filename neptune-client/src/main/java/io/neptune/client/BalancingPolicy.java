package io.neptune.client;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a client picks one replica among the candidates of a partition (DESIGN §5). */
public enum BalancingPolicy {
    /** A uniformly random candidate. */
    RANDOM,
    /** The candidates in turn. */
    ROUND_ROBIN,
    /**
     * Poll a few random candidates over UDP for their load, wait at most the poll deadline,
     * discard slow polls, and pick the least loaded; a random candidate if no poll answers.
     * The default.
     */
    RANDOM_POLLING,
    /** The least loaded candidate according to the load carried in announcements. */
    BROADCAST,
    /** The candidate with the fewest outstanding requests by a central tracker; for benchmarks only. */
    IDEAL,
    /**
     * The comparison scheme of the dissertation's section 4.3: every {@code partitioning-interval}
     * the replicas of a service are re-partitioned among the service classes from the demand each
     * class showed in the last interval (announced by the nodes): below capacity each class gets its
     * demand and the rest in proportion; above it, each class first gets its demand or its guaranteed
     * share, whichever is smaller, then the rest goes by full yield per unit of resource. Whole
     * servers are dedicated to one class; fractions share the remaining servers. A call is sent, by
     * random polling, to a server allocated to its class. A baseline for class-aware scheduling.
     */
    SERVER_PARTITIONING,
    /**
     * Random polling that polls only when what it knows is stale: every response carries the
     * serving node's load, the client adds its own calls in flight, and a sampled candidate is
     * polled only if its last report is older than a bound that adapts to the service's response
     * time and to how well past reports predicted the next. It samples {@code poll-size}
     * candidates, or more (up to all) when the service's response time is long beside a poll round
     * trip. For fine-grained services, where a poll per call costs as much as the call, it hardly
     * polls; for slow ones it polls the replicas it knows too little about.
     */
    LOAD_AWARE,
    /**
     * Power of two choices over this client's own calls in flight, the passive least-loaded policy
     * of Finagle and Envoy: two random candidates, the one this client has fewer unanswered calls
     * to. No polls, no server information; a baseline for {@link #LOAD_AWARE}.
     */
    P2C;

    /** The name used in config files: lower case with dashes, e.g. {@code random-polling}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses a config name, failing with the list of valid names. */
    public static BalancingPolicy fromConfigName(String name) {
        for (BalancingPolicy policy : values()) {
            if (policy.configName().equals(name)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("policy: '" + name + "' (expected: one of "
                + Arrays.stream(values()).map(BalancingPolicy::configName).collect(Collectors.joining(", ")) + ")");
    }
}
