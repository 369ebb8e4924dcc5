package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.neptune.core.NeptuneException;
import io.neptune.core.internal.wire.Poll;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What the client module measures (docs/OPERATIONS.md, Metrics): every call's latency by service,
 * method and outcome ({@code neptune.client.calls}), the round trip of answered load polls
 * ({@code neptune.client.poll.round.trip}), the load they reported ({@code neptune.client.poll.load}),
 * the polls sent ({@code neptune.client.polls.sent}) and the poll replies dropped by reason
 * ({@code neptune.client.poll.replies.dropped}), both read from the poller's own counters; and by service
 * the retries calls made ({@code neptune.client.retries}), the calls the retry budget ended
 * ({@code neptune.client.retries.throttled}), the budget's tokens ({@code neptune.client.retry.budget.tokens})
 * and the hedged reads, by which leg answered ({@code neptune.client.hedges}).
 *
 * <p>Thread-safety: thread-safe; recording takes no lock.
 */
public final class ClientMetrics {
    /** The outcome tag of a call that succeeded. */
    public static final String OK = "ok";

    /** An outcome tag per exception class: {@code OverloadedException} is {@code overloaded}. */
    private static final ClassValue<String> OUTCOMES = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            if (!NeptuneException.class.isAssignableFrom(type) || type == NeptuneException.class) {
                return "error";
            }
            String name = type.getSimpleName().replaceFirst("Exception$", "");
            return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
        }
    };

    private final MeterRegistry registry;
    private final CallTimers calls;
    private final Timer pollRoundTrip;
    private final DistributionSummary pollLoad;
    /** Counters by name, then service: the retry and hedging counts, made on first use. */
    private final Map<String, Map<String, Counter>> counters = new ConcurrentHashMap<>();

    private ClientMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
        this.calls = new CallTimers(registry, "neptune.client.calls",
                "Calls this node's client made, from start to result (retries included), by outcome");
        this.pollRoundTrip = Timer.builder("neptune.client.poll.round.trip")
                .description("Round trip of load polls that were answered").serviceLevelObjectives(
                        Duration.ofMillis(1).dividedBy(4), Duration.ofMillis(1).dividedBy(2), Duration.ofMillis(1),
                        Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
                        Duration.ofMillis(100))
                .register(registry);
        this.pollLoad = DistributionSummary.builder("neptune.client.poll.load")
                .description("The load (requests running or queued) each answered poll reported").register(registry);
    }

    /** Metrics recorded in {@code registry}. */
    public static ClientMetrics of(MeterRegistry registry) {
        return new ClientMetrics(registry);
    }

    /** Metrics recorded nowhere (a registry with no members makes no-op meters). */
    public static ClientMetrics none() {
        return new ClientMetrics(new CompositeMeterRegistry());
    }

    /** The outcome tag of a call that ended with {@code failure}, or {@link #OK} for null. */
    public static String outcome(@Nullable Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause == null ? OK : OUTCOMES.get(cause.getClass());
    }

    /** Records a call of {@code service.method} that ended after {@code nanos}. */
    void callEnded(String service, String method, @Nullable Throwable failure, long nanos) {
        calls.record(service, method, outcome(failure), nanos);
    }

    /** Counts a retry of a call of {@code service}: an attempt after a failed one, or after a wait. */
    void retried(String service) {
        count("neptune.client.retries", service, "Attempts calls made after a failed attempt or a wait");
    }

    /** Counts a call of {@code service} that the spent retry budget ended instead of retrying it. */
    void throttled(String service) {
        count("neptune.client.retries.throttled", service,
                "Calls that would have retried but ended because the client's retry budget was spent");
    }

    /** Counts a hedged read of {@code service}: the second leg was sent; {@code won}: it answered first. */
    void hedged(String service, boolean won) {
        count(won ? "neptune.client.hedges.won" : "neptune.client.hedges", service,
                won ? "Hedged reads the second replica answered first" : "Reads sent to a second replica (hedged)");
    }

    /** Exposes the tokens left in {@code budget}. */
    void bindRetryBudget(RetryBudget budget) {
        Gauge.builder("neptune.client.retry.budget.tokens", budget, RetryBudget::tokens)
                .description("Tokens left in the client's retry budget; retries stop at half the maximum")
                .register(registry);
    }

    private void count(String name, String service, String description) {
        counters.computeIfAbsent(name, n -> new ConcurrentHashMap<>()).computeIfAbsent(service, s ->
                Counter.builder(name).description(description).tag("service", s).register(registry)).increment();
    }

    /**
     * Times {@code poll} from now until its reply, if one comes; returns {@code poll} itself, since
     * the selectors cancel a slow poll, and the poller forgets it only when that poll completes.
     */
    CompletableFuture<Poll.Reply> timePoll(CompletableFuture<Poll.Reply> poll) {
        long sent = System.nanoTime();
        poll.whenComplete((reply, e) -> {
            if (reply != null) {
                pollRoundTrip.record(System.nanoTime() - sent, TimeUnit.NANOSECONDS);
                pollLoad.record(reply.load());
            }
        });
        return poll;
    }

    /** Exposes {@code poller}'s counts of polls sent and of replies dropped. */
    void bindPoller(LoadPoller poller) {
        FunctionCounter.builder("neptune.client.polls.sent", poller, LoadPoller::sent)
                .description("Load polls this node's client sent").register(registry);
        String dropped = "Poll replies this node's client dropped: from another address than the poll went to"
                + " (other_sender), with the id of no pending poll, late or forged (unknown_id); with a cluster secret"
                + " also without a MAC (unauthenticated), with a MAC that does not verify (bad_mac), or a second reply"
                + " to an answered poll (replayed)";
        FunctionCounter.builder("neptune.client.poll.replies.dropped", poller, LoadPoller::ignoredReplies)
                .tag("reason", "other_sender").description(dropped).register(registry);
        FunctionCounter.builder("neptune.client.poll.replies.dropped", poller, LoadPoller::unmatchedReplies)
                .tag("reason", "unknown_id").description(dropped).register(registry);
        FunctionCounter.builder("neptune.client.poll.replies.dropped", poller, LoadPoller::unauthenticatedReplies)
                .tag("reason", "unauthenticated").description(dropped).register(registry);
        FunctionCounter.builder("neptune.client.poll.replies.dropped", poller, LoadPoller::badMacReplies)
                .tag("reason", "bad_mac").description(dropped).register(registry);
        FunctionCounter.builder("neptune.client.poll.replies.dropped", poller, LoadPoller::replayedReplies)
                .tag("reason", "replayed").description(dropped).register(registry);
    }
}
