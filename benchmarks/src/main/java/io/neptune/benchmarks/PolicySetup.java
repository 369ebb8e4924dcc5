package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import java.time.Duration;

/**
 * One load-balancing configuration of {@link LoadBalancingExperiment}: a policy and, for random
 * polling, its poll size and whether slow polls are discarded.
 *
 * @param label the name in reports, e.g. {@code poll-3}
 * @param policy the policy
 * @param pollSize polled candidates (random polling only)
 * @param discardSlowPolls whether polls slower than the 10 ms deadline are discarded (random polling only)
 */
record PolicySetup(String label, BalancingPolicy policy, int pollSize, boolean discardSlowPolls) {
    /** The deadline of a call: no call should time out, even in the random policy's queues at 90% load. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    /**
     * With slow polls kept, the longest wait for a poll (100 times the 10 ms poll deadline). The
     * client waits for kept polls until its configured default timeout, which is also the default
     * call deadline; a poll datagram lost to a full socket buffer would otherwise hold its call for
     * the whole deadline and then fail it. So the keep-slow client's default timeout is this, and
     * the calls carry {@link #CALL_TIMEOUT} in their options.
     */
    static final Duration KEPT_POLL_LIMIT = Duration.ofSeconds(1);

    static final PolicySetup RANDOM = of("random", BalancingPolicy.RANDOM);
    static final PolicySetup IDEAL = of("ideal", BalancingPolicy.IDEAL);
    static final PolicySetup BROADCAST = of("broadcast", BalancingPolicy.BROADCAST);
    static final PolicySetup LOAD_AWARE = of("load-aware", BalancingPolicy.LOAD_AWARE);
    static final PolicySetup P2C = of("p2c", BalancingPolicy.P2C);

    /** Random polling of {@code size} candidates. */
    static PolicySetup polling(int size, boolean discardSlowPolls) {
        return new PolicySetup("poll-" + size + (discardSlowPolls ? "" : "-keep-slow"), BalancingPolicy.RANDOM_POLLING,
                size, discardSlowPolls);
    }

    private static PolicySetup of(String label, BalancingPolicy policy) {
        return new PolicySetup(label, policy, ClientConfig.DEFAULT_POLL_SIZE, true);
    }

    /** The client configuration: this policy, one connection per server, no retries (failures stay visible). */
    ClientConfig clientConfig() {
        return ClientConfig.builder().policy(policy).pollSize(pollSize).discardSlowPolls(discardSlowPolls)
                .timeout(discardSlowPolls ? CALL_TIMEOUT : KEPT_POLL_LIMIT).retries(0).connectionsPerNode(1).build();
    }

    /** The options of every call. */
    CallOptions callOptions() {
        return CallOptions.builder().policy(policy).timeout(CALL_TIMEOUT).build();
    }
}
