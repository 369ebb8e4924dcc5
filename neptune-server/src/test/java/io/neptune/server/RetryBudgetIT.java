package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.ReplicaRole;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a failing primary costs the cluster in attempts, between real nodes. The primary of a level-2
 * service refuses every write as OVERLOADED (its one replicated-write slot is held by a write the
 * test keeps waiting), and three callers offer it the same open-loop load, 20 writes a second for 3 s
 * with a 1 s deadline each: one with the fixed 50 ms pause of earlier versions, one with exponential
 * backoff and no budget, one with the defaults (backoff and the retry budget). Each counts the
 * attempts it sent: calls plus retries, from its own metrics.
 */
@Tag("alone") // runs by itself (failsafe's first pass): it asserts retry counts over a second of timed retries
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RetryBudgetIT {
    private static final String SERVICE = "held";
    private static final int CALLS = 60;
    private static final long PERIOD_MILLIS = 50;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

    /** A level-2 service whose first write holds its slot until the test lets it go. */
    @NeptuneService(name = SERVICE, partitions = 1, consistency = ConsistencyLevel.LEVEL_2)
    public static final class HeldService {
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch entered = new CountDownLatch(1);
        private volatile long applied;

        /** The request and response of {@code put}. */
        public record Put(int n) {}

        @Write
        public Put put(RequestContext context, Put request) throws InterruptedException {
            entered.countDown();
            if (!release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            applied = context.lsn();
            return request;
        }

        @Check
        public boolean check(int partition, long lsn) {
            return applied >= lsn;
        }
    }

    /** What one caller sent in its run. */
    record Run(String caller, long attempts, long calls, long throttled, double seconds) {
        double attemptsPerSecond() {
            return attempts / seconds;
        }

        @Override
        public String toString() {
            return String.format("%-8s %5d attempts for %d calls in %.2f s: %6.1f attempts/s, %.1f per call, %d ended"
                    + " by the budget", caller, attempts, calls, seconds, attemptsPerSecond(),
                    attempts / (double) calls, throttled);
        }
    }

    @Test
    void theRetryBudgetAndBackoffCutTheAttemptsAFailingPrimaryReceives() throws Exception {
        HeldService held = new HeldService();
        ScheduledExecutorService offer = Executors.newSingleThreadScheduledExecutor();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode primary = cluster.add("primary", ClientConfig.defaults(),
                    b -> b.host(held, HostingConfig.builder().replicas(1).queueCapacity(1).build()));
            ClientConfig fixed = ClientConfig.builder().retryBackoffMultiplier(1).retryBackoffMax(Duration.ofMillis(50))
                    .retryJitter(false).retryBudgetTokens(0).build();
            ClientConfig backoff = ClientConfig.builder().retryBudgetTokens(0).build();
            List<Run> runs = new ArrayList<>();
            ReplicatedProcesses.await(() -> primary.replicaRoles(SERVICE, 0).get(primary.node()) == ReplicaRole.PRIMARY,
                    Duration.ofSeconds(30), "the primary to lead " + SERVICE + "#0");
            CompletableFuture<HeldService.Put> holder = primary.client().callAsync(NeptuneHandle.create(), SERVICE, 0,
                    "put", AccessMode.WRITE, new HeldService.Put(0), HeldService.Put.class,
                    CallOptions.timeout(Duration.ofSeconds(60)));
            try {
                assertThat(held.entered.await(30, TimeUnit.SECONDS)).as("the holding write reached the service")
                        .isTrue();
                runs.add(run(cluster, offer, "fixed", fixed));
                runs.add(run(cluster, offer, "backoff", backoff));
                runs.add(run(cluster, offer, "budget", ClientConfig.defaults()));
            } finally {
                held.release.countDown();
            }
            assertThat(holder.get(30, TimeUnit.SECONDS).n()).isZero();
            runs.forEach(run -> System.out.println("RetryBudgetIT: " + run));

            Run fixedRun = runs.get(0);
            Run backoffRun = runs.get(1);
            Run budgetRun = runs.get(2);
            // fixed: a retry every 50 ms for about 1 s, some 20 attempts per call
            assertThat(fixedRun.attempts()).isGreaterThan(10L * CALLS);
            // backoff 50, 100, 200, 400 ms (jittered): a handful per call
            assertThat(backoffRun.attempts()).isLessThan(fixedRun.attempts() / 2);
            // the budget: once 50 attempts failed, one attempt per call
            assertThat(budgetRun.attempts()).isLessThan(fixedRun.attempts() / 5);
            assertThat(budgetRun.throttled()).isPositive();
        } finally {
            offer.shutdownNow();
        }
    }

    /** Offers {@link #CALLS} writes from a new caller with {@code config}, one every {@link #PERIOD_MILLIS}. */
    private static Run run(MiniCluster cluster, ScheduledExecutorService offer, String name, ClientConfig config)
            throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        NeptuneNode caller = cluster.add(name, config, b -> b.meterRegistry(registry));
        ReplicatedProcesses.await(() -> caller.replicaRoles(SERVICE, 0).size() == 1, Duration.ofSeconds(30),
                name + " to see the primary");
        List<CompletableFuture<?>> calls = new ArrayList<>();
        AtomicInteger sent = new AtomicInteger();
        CountDownLatch offered = new CountDownLatch(1);
        long started = System.nanoTime();
        ScheduledFuture<?> ticks = offer.scheduleAtFixedRate(() -> {
            if (sent.incrementAndGet() > CALLS) {
                offered.countDown();
                return;
            }
            synchronized (calls) {
                calls.add(caller.client().callAsync(NeptuneHandle.create(), SERVICE, 0, "put", AccessMode.WRITE,
                        new HeldService.Put(sent.get()), HeldService.Put.class, CallOptions.timeout(CALL_TIMEOUT)));
            }
        }, 0, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        assertThat(offered.await(60, TimeUnit.SECONDS)).as("the calls offered").isTrue();
        ticks.cancel(false);
        synchronized (calls) {
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).handle((v, e) -> null)
                    .get(60, TimeUnit.SECONDS);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        // a call is counted just after its future completes
        MiniCluster.await(name + ": every call counted", Duration.ofSeconds(10), () -> registry.find(
                "neptune.client.calls").timers().stream().mapToLong(Timer::count).sum() == CALLS);
        long ended = registry.get("neptune.client.calls").timers().stream().mapToLong(Timer::count).sum();
        long retries = (long) registry.find("neptune.client.retries").counters().stream()
                .mapToDouble(Counter::count).sum();
        long throttled = (long) registry.find("neptune.client.retries.throttled").counters().stream()
                .mapToDouble(Counter::count).sum();
        caller.close();
        return new Run(name, ended + retries, ended, throttled, seconds);
    }
}
