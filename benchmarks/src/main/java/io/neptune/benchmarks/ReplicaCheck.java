package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.EmulatedDiscussion.Header;
import io.neptune.benchmarks.EmulatedDiscussion.Headers;
import io.neptune.benchmarks.EmulatedDiscussion.ViewHeaders;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ReplicaRole;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.NeptuneNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * After a run with failures: checks that no acknowledged post of the discussion group was lost.
 * First every partition's replicas must agree, the same applied version and the same digest at
 * every replica ({@code ClusterAdmin.replicas}, waiting while a recovered replica still catches up);
 * then every topic that had an acknowledged post is read back and each acknowledged post must be
 * among its headers. A topic whose page of {@value EmulatedDiscussion#HEADERS_PAGE} headers is full
 * without the post cannot tell, and is counted as unchecked rather than lost.
 *
 * <p>Thread-safety: a static check run from one thread.
 */
final class ReplicaCheck {
    /**
     * One acknowledged post.
     *
     * @param partition its partition
     * @param topic its topic
     * @param id its message id
     */
    record Ack(int partition, String topic, long id) {}

    private static final int IN_FLIGHT = 32;

    private ReplicaCheck() {}

    /**
     * What the check found.
     *
     * @param partitions partitions checked
     * @param agreeing partitions whose replicas all reported the same version and digest
     * @param replicas replicas that answered, over all partitions
     * @param acknowledged acknowledged posts
     * @param found acknowledged posts read back
     * @param missing acknowledged posts absent from a topic page that was not full: lost
     * @param unchecked acknowledged posts that could not be checked (full page, or the read failed)
     * @param firstProblem the first disagreement or loss, or empty
     * @param seconds how long the check took
     */
    record Result(int partitions, int agreeing, int replicas, long acknowledged, long found, long missing,
            long unchecked, String firstProblem, double seconds) {
        /** Whether every partition's replicas agreed and no acknowledged post was missing. */
        boolean passed() {
            return agreeing == partitions && missing == 0;
        }

        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%d/%d partitions with all %d replicas agreeing (version and"
                    + " digest); %d of %d acknowledged posts read back, %d missing, %d unchecked; %s (%.1f s)",
                    agreeing, partitions, replicas, found, acknowledged, missing, unchecked,
                    passed() ? "PASSED" : "FAILED: " + firstProblem, seconds);
        }
    }

    /** Runs the check on {@code service} with {@code degree} replicas per partition. */
    static Result run(NeptuneNode driver, String service, int degree, List<Ack> acks, Duration timeout)
            throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        int agreeing = 0;
        int replicas = 0;
        String firstProblem = "";
        for (int p = 0; p < EmulatedDiscussion.PARTITIONS; p++) {
            String problem;
            List<ReplicaStatus> statuses;
            do {
                statuses = statuses(driver, service, p);
                problem = disagreement(statuses, degree);
                if (problem.isEmpty() || System.nanoTime() - deadline > 0) {
                    break;
                }
                TimeUnit.MILLISECONDS.sleep(100);
            } while (true);
            replicas += (int) statuses.stream().filter(s -> s.error().isEmpty()).count();
            if (problem.isEmpty()) {
                agreeing++;
            } else if (firstProblem.isEmpty()) {
                firstProblem = service + "#" + p + ": " + problem;
            }
        }
        AtomicLong found = new AtomicLong();
        AtomicLong missing = new AtomicLong();
        AtomicLong unchecked = new AtomicLong();
        AtomicReference<String> lost = new AtomicReference<>("");
        readBack(driver, service, acks, found, missing, unchecked, lost);
        if (firstProblem.isEmpty()) {
            firstProblem = requireNonNull(lost.get(), "lost: starts empty");
        }
        return new Result(EmulatedDiscussion.PARTITIONS, agreeing, replicas, acks.size(), found.get(), missing.get(),
                unchecked.get(), firstProblem, (System.nanoTime() - started) / 1e9);
    }

    private static List<ReplicaStatus> statuses(NeptuneNode driver, String service, int partition) {
        try {
            return driver.admin().replicas(service, partition).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return List.of(new ReplicaStatus("?", ReplicaRole.RECOVERING, 0, 0, 0, 0, 0, "", e.toString()));
        }
    }

    /** Why the replicas do not agree, or empty if they do. */
    private static String disagreement(List<ReplicaStatus> statuses, int degree) {
        if (statuses.size() != degree || statuses.stream().anyMatch(s -> !s.error().isEmpty())) {
            return "answers " + statuses + " (expected: " + degree + " replicas answering)";
        }
        if (statuses.stream().anyMatch(s -> s.role() == ReplicaRole.RECOVERING)) {
            return "a replica is still recovering: " + statuses;
        }
        Set<String> states = statuses.stream().map(ReplicaStatus::digest).collect(Collectors.toSet());
        return states.size() == 1 ? "" : "replicas differ: " + statuses.stream().map(s -> s.node() + " " + s.role()
                + " log end " + s.logEnd() + ", applied " + s.version() + ", digest " + s.digest().substring(0,
                Math.min(s.digest().length(), 12))).collect(Collectors.joining("; "));
    }

    /** Reads back every topic with an acknowledged post, {@value #IN_FLIGHT} reads at a time. */
    private static void readBack(NeptuneNode driver, String service, List<Ack> acks, AtomicLong found,
            AtomicLong missing, AtomicLong unchecked, AtomicReference<String> lost) throws InterruptedException {
        Map<String, List<Ack>> byTopic = acks.stream().collect(Collectors.groupingBy(Ack::topic));
        Semaphore window = new Semaphore(IN_FLIGHT);
        NeptuneHandle handle = NeptuneHandle.create();
        List<CompletableFuture<?>> reads = new ArrayList<>();
        for (List<Ack> posts : byTopic.values()) {
            Ack first = posts.get(0);
            window.acquire();
            reads.add(driver.client().callAsync(handle, service, first.partition(), "ViewHeaders", AccessMode.READ,
                    new ViewHeaders(first.topic()), Headers.class, CallOptions.timeout(Duration.ofSeconds(10)))
                    .whenComplete((headers, error) -> {
                        window.release();
                        if (error != null) {
                            unchecked.addAndGet(posts.size());
                            return;
                        }
                        Set<Long> ids = headers.headers().stream().map(Header::id).collect(Collectors.toSet());
                        boolean full = headers.headers().size() >= EmulatedDiscussion.HEADERS_PAGE;
                        for (Ack post : posts) {
                            if (ids.contains(post.id())) {
                                found.incrementAndGet();
                            } else if (full) {
                                unchecked.incrementAndGet();
                            } else {
                                missing.incrementAndGet();
                                lost.compareAndSet("", "acknowledged post " + post + " not found in " + headers);
                            }
                        }
                    }));
        }
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).handle((r, e) -> null).join();
    }
}
