package io.neptune.client;

import static java.util.Objects.requireNonNull;

import io.neptune.client.internal.Seed;
import io.neptune.core.internal.Checks;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the client module. Immutable; create with {@link #builder()}.
 *
 * @param policy the default load-balancing policy
 * @param pollSize candidates polled by {@link BalancingPolicy#RANDOM_POLLING}
 * @param pollDeadline how long random polling waits for poll replies
 * @param discardSlowPolls whether replies after the poll deadline are discarded (the default) or
 *     waited for, up to a quarter of {@code timeout}: a lost poll datagram then costs part of
 *     the call's time, not all of it
 * @param timeout default deadline of a call
 * @param retries how many more replicas a failed call may try (a budget, not a loop)
 * @param retryBackoff the bound of a call's first wait before it tries again (a write waiting for its
 *     partition's primary, a read waiting for a replica to catch up); each later wait's bound is
 *     {@code retryBackoffMultiplier} times the one before, up to {@code retryBackoffMax}, and never reaches
 *     the call's deadline
 * @param retryBackoffMultiplier how much each wait's bound grows over the one before (1: a fixed pause)
 * @param retryBackoffMax the largest bound of a wait
 * @param retryJitter whether each wait is drawn at random below its bound (full jitter, the default) or
 *     is the bound itself
 * @param retryBudgetTokens the client's retry budget (gRPC's retry throttling): a bucket of this many
 *     tokens; each attempt that fails takes one, each answered one gives back
 *     {@code retryBudgetTokenRatio}, and calls retry or hedge only while more than half are left; 0: no
 *     budget
 * @param retryBudgetTokenRatio the share of a token an answered attempt gives back: roughly the
 *     retries allowed per answered call while the bucket is at its threshold
 * @param hedgedReads whether a read of a level-1 or level-2 service that has not been answered after the
 *     service's recent 95th-percentile latency is sent to a second replica too, the first answer winning
 * @param connectionsPerNode TCP connections kept to each node; requests are multiplexed over them in
 *     turn, except that a call made on one of the client's event loops goes out on that loop's connection
 * @param connectTimeout TCP connect timeout
 * @param maxFrameBytes largest frame accepted or sent
 * @param partitioningInterval how often {@link BalancingPolicy#SERVER_PARTITIONING} re-partitions the
 *     replicas of a service among the service classes
 * @param seeds where a client outside the cluster ({@link NeptuneClient#connect(ClientConfig)}) first asks
 *     for the yellow page: {@code host:port} of nodes' request ports, where a host may be a DNS name
 *     listing several nodes (a Kubernetes headless Service); unused by a client inside the cluster
 * @param directoryRefresh how often a client outside the cluster asks a node for its yellow page again
 *     (the members' announce interval by default, so its page is as fresh as theirs one interval later)
 */
public record ClientConfig(
        BalancingPolicy policy,
        int pollSize,
        Duration pollDeadline,
        boolean discardSlowPolls,
        Duration timeout,
        int retries,
        Duration retryBackoff,
        double retryBackoffMultiplier,
        Duration retryBackoffMax,
        boolean retryJitter,
        int retryBudgetTokens,
        double retryBudgetTokenRatio,
        boolean hedgedReads,
        int connectionsPerNode,
        Duration connectTimeout,
        int maxFrameBytes,
        Duration partitioningInterval,
        List<String> seeds,
        Duration directoryRefresh) {

    /** Default for {@link #pollSize()}. */
    public static final int DEFAULT_POLL_SIZE = 3;
    /** Default for {@link #pollDeadline()}. */
    public static final Duration DEFAULT_POLL_DEADLINE = Duration.ofMillis(10);
    /** Default for {@link #timeout()}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** Default for {@link #retries()}. */
    public static final int DEFAULT_RETRIES = 2;
    /** Default for {@link #retryBackoff()}: the fixed pause of earlier versions. */
    public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofMillis(50);
    /** Default for {@link #retryBackoffMultiplier()}. */
    public static final double DEFAULT_RETRY_BACKOFF_MULTIPLIER = 2;
    /** Default for {@link #retryBackoffMax()}. */
    public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(1);
    /** Default for {@link #retryBudgetTokens()}. */
    public static final int DEFAULT_RETRY_BUDGET_TOKENS = 100;
    /** Default for {@link #retryBudgetTokenRatio()}. */
    public static final double DEFAULT_RETRY_BUDGET_TOKEN_RATIO = 0.1;
    /** The most tokens {@link #retryBudgetTokens()} may be (gRPC's limit too). */
    public static final int MAX_RETRY_BUDGET_TOKENS = 1000;
    /** Default for {@link #connectionsPerNode()}. */
    public static final int DEFAULT_CONNECTIONS_PER_NODE = 2;
    /** Default for {@link #connectTimeout()}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** Default for {@link #partitioningInterval()}: 10 s, the dissertation's. */
    public static final Duration DEFAULT_PARTITIONING_INTERVAL = Duration.ofSeconds(10);
    /** Default for {@link #directoryRefresh()}: 1 s, the members' default announce interval. */
    public static final Duration DEFAULT_DIRECTORY_REFRESH = Duration.ofSeconds(1);
    /** Default for {@link #maxFrameBytes()}: 4 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

    /** Validates the fields. */
    public ClientConfig {
        requireNonNull(policy, "policy");
        Checks.atLeast("pollSize", pollSize, 1);
        Checks.positive("pollDeadline", pollDeadline);
        Checks.positive("timeout", timeout);
        Checks.atLeast("retries", retries, 0);
        Checks.positive("retryBackoff", retryBackoff);
        if (!(retryBackoffMultiplier >= 1 && retryBackoffMultiplier <= 100)) { // also refuses NaN
            throw new IllegalArgumentException("retryBackoffMultiplier: " + retryBackoffMultiplier
                    + " (expected: 1 to 100)");
        }
        Checks.positive("retryBackoffMax", retryBackoffMax);
        if (retryBackoffMax.compareTo(retryBackoff) < 0) {
            throw new IllegalArgumentException("retryBackoffMax: " + retryBackoffMax + " (expected: >= retryBackoff, "
                    + retryBackoff + ")");
        }
        if (retryBudgetTokens < 0 || retryBudgetTokens > MAX_RETRY_BUDGET_TOKENS) {
            throw new IllegalArgumentException("retryBudgetTokens: " + retryBudgetTokens
                    + " (expected: 0 for no budget, or 1 to " + MAX_RETRY_BUDGET_TOKENS + ")");
        }
        if (!(retryBudgetTokenRatio >= 0.001 && retryBudgetTokenRatio <= 1)) {
            throw new IllegalArgumentException("retryBudgetTokenRatio: " + retryBudgetTokenRatio
                    + " (expected: 0.001 to 1)");
        }
        Checks.atLeast("connectionsPerNode", connectionsPerNode, 1);
        Checks.positive("connectTimeout", connectTimeout);
        Checks.atLeast("maxFrameBytes", maxFrameBytes, 1024);
        Checks.positive("partitioningInterval", partitioningInterval);
        seeds = List.copyOf(seeds);
        seeds.forEach(Seed::parse);
        Checks.positive("directoryRefresh", directoryRefresh);
    }

    /** Returns the defaults. */
    public static ClientConfig defaults() {
        return builder().build();
    }

    /** Returns a builder with every default set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns a builder initialized from this configuration. */
    public Builder toBuilder() {
        return new Builder().policy(policy).pollSize(pollSize).pollDeadline(pollDeadline)
                .discardSlowPolls(discardSlowPolls).timeout(timeout).retries(retries)
                .retryBackoff(retryBackoff).retryBackoffMultiplier(retryBackoffMultiplier)
                .retryBackoffMax(retryBackoffMax).retryJitter(retryJitter).retryBudgetTokens(retryBudgetTokens)
                .retryBudgetTokenRatio(retryBudgetTokenRatio).hedgedReads(hedgedReads)
                .connectionsPerNode(connectionsPerNode).connectTimeout(connectTimeout).maxFrameBytes(maxFrameBytes)
                .partitioningInterval(partitioningInterval).seeds(seeds).directoryRefresh(directoryRefresh);
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private BalancingPolicy policy = BalancingPolicy.RANDOM_POLLING;
        private int pollSize = DEFAULT_POLL_SIZE;
        private Duration pollDeadline = DEFAULT_POLL_DEADLINE;
        private boolean discardSlowPolls = true;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int retries = DEFAULT_RETRIES;
        private Duration retryBackoff = DEFAULT_RETRY_BACKOFF;
        private double retryBackoffMultiplier = DEFAULT_RETRY_BACKOFF_MULTIPLIER;
        private Duration retryBackoffMax = DEFAULT_RETRY_BACKOFF_MAX;
        private boolean retryJitter = true;
        private int retryBudgetTokens = DEFAULT_RETRY_BUDGET_TOKENS;
        private double retryBudgetTokenRatio = DEFAULT_RETRY_BUDGET_TOKEN_RATIO;
        private boolean hedgedReads;
        private int connectionsPerNode = DEFAULT_CONNECTIONS_PER_NODE;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private Duration partitioningInterval = DEFAULT_PARTITIONING_INTERVAL;
        private List<String> seeds = List.of();
        private Duration directoryRefresh = DEFAULT_DIRECTORY_REFRESH;

        private Builder() {}

        /** Sets {@link ClientConfig#seeds()}. */
        public Builder seeds(List<String> seeds) {
            this.seeds = seeds;
            return this;
        }

        /** Sets {@link ClientConfig#seeds()}. */
        public Builder seeds(String... seeds) {
            return seeds(List.of(seeds));
        }

        /** Sets {@link ClientConfig#directoryRefresh()}. */
        public Builder directoryRefresh(Duration directoryRefresh) {
            this.directoryRefresh = directoryRefresh;
            return this;
        }

        /** Sets {@link ClientConfig#partitioningInterval()}. */
        public Builder partitioningInterval(Duration partitioningInterval) {
            this.partitioningInterval = partitioningInterval;
            return this;
        }

        /** Sets {@link ClientConfig#policy()}. */
        public Builder policy(BalancingPolicy policy) {
            this.policy = policy;
            return this;
        }

        /** Sets {@link ClientConfig#pollSize()}. */
        public Builder pollSize(int pollSize) {
            this.pollSize = pollSize;
            return this;
        }

        /** Sets {@link ClientConfig#pollDeadline()}. */
        public Builder pollDeadline(Duration pollDeadline) {
            this.pollDeadline = pollDeadline;
            return this;
        }

        /** Sets {@link ClientConfig#discardSlowPolls()}. */
        public Builder discardSlowPolls(boolean discardSlowPolls) {
            this.discardSlowPolls = discardSlowPolls;
            return this;
        }

        /** Sets {@link ClientConfig#timeout()}. */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** Sets {@link ClientConfig#retries()}. */
        public Builder retries(int retries) {
            this.retries = retries;
            return this;
        }

        /** Sets {@link ClientConfig#retryBackoff()}. */
        public Builder retryBackoff(Duration retryBackoff) {
            this.retryBackoff = retryBackoff;
            return this;
        }

        /** Sets {@link ClientConfig#retryBackoffMultiplier()}. */
        public Builder retryBackoffMultiplier(double retryBackoffMultiplier) {
            this.retryBackoffMultiplier = retryBackoffMultiplier;
            return this;
        }

        /** Sets {@link ClientConfig#retryBackoffMax()}. */
        public Builder retryBackoffMax(Duration retryBackoffMax) {
            this.retryBackoffMax = retryBackoffMax;
            return this;
        }

        /** Sets {@link ClientConfig#retryJitter()}. */
        public Builder retryJitter(boolean retryJitter) {
            this.retryJitter = retryJitter;
            return this;
        }

        /** Sets {@link ClientConfig#retryBudgetTokens()}; 0 turns the budget off. */
        public Builder retryBudgetTokens(int retryBudgetTokens) {
            this.retryBudgetTokens = retryBudgetTokens;
            return this;
        }

        /** Sets {@link ClientConfig#retryBudgetTokenRatio()}. */
        public Builder retryBudgetTokenRatio(double retryBudgetTokenRatio) {
            this.retryBudgetTokenRatio = retryBudgetTokenRatio;
            return this;
        }

        /** Sets {@link ClientConfig#hedgedReads()}. */
        public Builder hedgedReads(boolean hedgedReads) {
            this.hedgedReads = hedgedReads;
            return this;
        }

        /** Sets {@link ClientConfig#connectionsPerNode()}. */
        public Builder connectionsPerNode(int connectionsPerNode) {
            this.connectionsPerNode = connectionsPerNode;
            return this;
        }

        /** Sets {@link ClientConfig#connectTimeout()}. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** Sets {@link ClientConfig#maxFrameBytes()}. */
        public Builder maxFrameBytes(int maxFrameBytes) {
            this.maxFrameBytes = maxFrameBytes;
            return this;
        }

        /** Validates and builds the configuration. */
        public ClientConfig build() {
            return new ClientConfig(policy, pollSize, pollDeadline, discardSlowPolls, timeout, retries, retryBackoff,
                    retryBackoffMultiplier, retryBackoffMax, retryJitter, retryBudgetTokens, retryBudgetTokenRatio,
                    hedgedReads, connectionsPerNode, connectTimeout, maxFrameBytes, partitioningInterval, seeds,
                    directoryRefresh);
        }
    }
}
