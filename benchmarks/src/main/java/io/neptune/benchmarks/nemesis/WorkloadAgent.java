package io.neptune.benchmarks.nemesis;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfigFile;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The workload client of the nemesis bench, a JVM run inside the client's network namespace (the
 * bench JVM stays in the host's namespace and must not reach the private network). It joins the
 * cluster as a node hosting nothing, waits until every partition is served, then obeys one-line
 * commands on stdin and answers on stdout:
 *
 * <pre>
 *   (on its own)  READY | NOT-READY &lt;what is missing&gt;
 *   START origin  -> starts the workload; then every second PROGRESS seconds ok fail info
 *   PRIMARIES     -> PRIMARIES {"partition":["node",...],...}   (from the yellow page)
 *   STOP graceMs  -> STOPPED historyLines   (no new operations; in-flight ones completed or cut)
 *   REPLICAS      -> REPLICAS [{"node":..,"partition":..,"role":..,"version":..,"digest":..},...]
 *   HOSTS         -> HOSTS {"partition":{"node":"role",...},...}   (every replica in the yellow page)
 *   PLACE id command partition node timeoutMs
 *                 -> at once nothing; once the ClusterAdmin call (add-replica, remove-replica,
 *                    move-primary; or rebalance, partition and node ignored, timeoutMs per step)
 *                    completed: PLACED id ok|failed text   (one line)
 *   QUIT or EOF   -> leaves the cluster and exits
 * </pre>
 *
 * <p>Usage: {@code WorkloadAgent --config FILE --history FILE --service NAME --degree D --processes K
 * --keys N --think-ms M --seed S [--parent-pid P]}. With a parent pid it exits when that process ends.
 */
public final class WorkloadAgent {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(10);
    /** How long a rebalance asks for a plan again while a partition has no primary in the yellow page. */
    private static final Duration PLAN_WAIT = Duration.ofSeconds(30);
    /** The most plans a rebalance asks for: the last one only checks that nothing is left to do. */
    private static final int REBALANCE_ROUNDS = 3;

    private final Map<String, String> options;
    private final ObjectMapper json = new ObjectMapper();
    private final String service;
    private final int degree;
    private @Nullable HistoryRecorder history;
    private @Nullable Workload workload;
    private @Nullable ScheduledFuture<?> ticks;

    private WorkloadAgent(Map<String, String> options) {
        this.options = options;
        this.service = option("service");
        this.degree = Integer.parseInt(option("degree"));
    }

    /** Runs the agent; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("argument: " + args[i] + " (expected: --name value pairs)");
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        long parent = Long.parseLong(options.getOrDefault("parent-pid", "0"));
        if (parent > 0) {
            Optional<ProcessHandle> handle = ProcessHandle.of(parent);
            if (handle.isEmpty()) {
                return;
            }
            handle.get().onExit().thenRun(() -> Runtime.getRuntime().halt(0));
        }
        new WorkloadAgent(options).run();
    }

    private void run() throws Exception {
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nemesis-agent-progress");
            t.setDaemon(true);
            return t;
        });
        try (NeptuneNode node = NodeConfigFile.load(Path.of(option("config"))).toBuilder().start()) {
            String missing = awaitReady(node);
            emit(missing == null ? "READY" : "NOT-READY " + missing);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] words = line.trim().split("\\s+");
                switch (words[0]) {
                    case "START" -> start(node, Long.parseLong(words[1]), ticker);
                    case "PRIMARIES" -> emit("PRIMARIES " + json.writeValueAsString(primaries(node)));
                    case "STOP" -> emit("STOPPED " + stop(Duration.ofMillis(Long.parseLong(words[1]))));
                    case "REPLICAS" -> emit("REPLICAS " + json.writeValueAsString(replicas(node)));
                    case "HOSTS" -> emit("HOSTS " + json.writeValueAsString(hosts(node)));
                    case "PLACE" -> place(node, words);
                    case "QUIT" -> {
                        return;
                    }
                    default -> emit("ERROR unknown command: " + line);
                }
            }
        } finally {
            ticker.shutdownNow();
            if (history != null) {
                history.close();
            }
        }
    }

    private void start(NeptuneNode node, long origin, ScheduledExecutorService ticker) {
        HistoryRecorder recorder = new HistoryRecorder(Path.of(option("history")), origin);
        Workload started = new Workload(node.client(), service, recorder, Long.parseLong(option("seed")),
                Integer.parseInt(option("processes")), Integer.parseInt(option("keys")),
                Duration.ofMillis(Long.parseLong(option("think-ms"))));
        history = recorder;
        workload = started;
        started.start();
        ticks = ticker.scheduleAtFixedRate(() -> {
            long[] counts = started.counts();
            emit("PROGRESS " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - origin) + " " + counts[0] + " "
                    + counts[1] + " " + counts[2]);
        }, 1, 1, TimeUnit.SECONDS);
    }

    private long stop(Duration grace) throws InterruptedException {
        Workload running = workload;
        HistoryRecorder recorder = history;
        if (running == null || recorder == null) {
            return 0;
        }
        if (ticks != null) {
            ticks.cancel(false);
        }
        running.stop(grace);
        recorder.close();
        return recorder.size();
    }

    /** Waits until every partition has {@code degree} serving replicas and a primary; what is missing, or null. */
    private @Nullable String awaitReady(NeptuneNode node) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        boolean primaries = !service.equals(ListAppendService.nameOf(1));   // level 1 writes anywhere: no primary
        while (true) {
            String missing = null;
            for (int p = 0; p < ListAppendService.PARTITIONS && missing == null; p++) {
                Map<NodeId, ReplicaRole> roles = node.replicaRoles(service, p);
                if (roles.size() != degree || roles.containsValue(ReplicaRole.RECOVERING)
                        || (primaries && !roles.containsValue(ReplicaRole.PRIMARY))) {
                    missing = service + "#" + p + " " + roles;
                }
            }
            if (missing == null || System.nanoTime() - deadline > 0) {
                return missing;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** The primaries of every partition in this node's yellow page (two during a split brain). */
    private Map<Integer, List<String>> primaries(NeptuneNode node) {
        Map<Integer, List<String>> primaries = new TreeMap<>();
        for (AnnouncedReplica replica : node.admin().announcedReplicas()) {
            if (replica.service().equals(service) && replica.role() == ReplicaRole.PRIMARY) {
                primaries.computeIfAbsent(replica.partition(), p -> new ArrayList<>()).add(replica.node());
            }
        }
        return primaries;
    }

    /** Every replica of every partition in this node's yellow page, with its announced role. */
    private Map<Integer, Map<String, String>> hosts(NeptuneNode node) {
        Map<Integer, Map<String, String>> hosts = new TreeMap<>();
        for (AnnouncedReplica replica : node.admin().announcedReplicas()) {
            if (replica.service().equals(service)) {
                hosts.computeIfAbsent(replica.partition(), p -> new TreeMap<>()).put(replica.node(),
                        replica.role().name());
            }
        }
        return hosts;
    }

    /** Starts a placement call; its answer is a PLACED line, whenever it completes. */
    private void place(NeptuneNode node, String[] words) {
        String id = words[1];
        int partition = Integer.parseInt(words[3]);
        String target = words[4];
        java.util.concurrent.CompletableFuture<String> call;
        try {
            call = switch (words[2]) {
                case "add-replica" -> node.admin().addReplica(service, partition, target,
                        Duration.ofMillis(Long.parseLong(words[5])));
                case "remove-replica" -> node.admin().removeReplica(service, partition, target);
                case "move-primary" -> node.admin().movePrimary(service, partition, target);
                case "rebalance" -> rebalance(node, Duration.ofMillis(Long.parseLong(words[5])));
                default -> throw new IllegalArgumentException("placement command: " + words[2]);
            };
        } catch (RuntimeException e) {
            call = java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        call.whenComplete((text, error) -> {
            Throwable cause = error;
            while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            String answer = cause == null ? "ok " + text : "failed " + (cause.getMessage() == null ? cause.toString()
                    : cause.getMessage());
            emit("PLACED " + id + " " + answer.replaceAll("[\\r\\n]+", " "));
        });
    }

    /**
     * Plans and runs {@code admin rebalance} of the service, as an operator restores each partition's
     * replica count after a campaign of changes; the plan is asked again while it finds a partition
     * without a primary (right after healing), for up to {@link #PLAN_WAIT}. Right after healing a plan
     * may also leave out partitions whose primary changed meanwhile (a note says so), so an operator
     * runs it again until it plans nothing; this does too, up to {@link #REBALANCE_ROUNDS} rounds.
     * Completes with the steps of each round.
     */
    private java.util.concurrent.CompletableFuture<String> rebalance(NeptuneNode node, Duration stepTimeout) {
        return rebalance(node, stepTimeout, 1, "");
    }

    private java.util.concurrent.CompletableFuture<String> rebalance(NeptuneNode node, Duration stepTimeout,
            int round, String done) {
        return plan(node, System.nanoTime() + PLAN_WAIT.toNanos()).thenCompose(plan -> {
            String text = done + (done.isEmpty() ? "" : "; ") + "round " + round + ": " + plan.steps().size()
                    + " steps " + plan.steps() + (plan.notes().isEmpty() ? "" : " (notes: " + plan.notes() + ")");
            if (plan.steps().isEmpty() || round == REBALANCE_ROUNDS) {
                return java.util.concurrent.CompletableFuture.completedFuture(text);
            }
            return node.admin().rebalance(plan, stepTimeout, step -> { })
                    .thenCompose(v -> rebalance(node, stepTimeout, round + 1, text));
        });
    }

    private java.util.concurrent.CompletableFuture<io.neptune.server.ClusterAdmin.RebalancePlan> plan(
            NeptuneNode node, long deadline) {
        return node.admin().planRebalance(service).handle((plan, e) -> {
            if (e == null) {
                return java.util.concurrent.CompletableFuture.completedFuture(plan);
            }
            String why = String.valueOf(e.getMessage());
            if ((why.contains("NEP-PLACE-002") || why.contains("cannot tell whether")) && System.nanoTime() < deadline) {
                return java.util.concurrent.CompletableFuture.supplyAsync(() -> null,
                        java.util.concurrent.CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS))
                        .thenCompose(x -> plan(node, deadline));
            }
            return java.util.concurrent.CompletableFuture.<io.neptune.server.ClusterAdmin.RebalancePlan>failedFuture(e);
        }).thenCompose(f -> f);
    }

    /** Every replica's state as it answers now; a partition whose query failed lists one error entry. */
    private List<Map<String, Object>> replicas(NeptuneNode node) {
        List<Map<String, Object>> replicas = new ArrayList<>();
        for (int p = 0; p < ListAppendService.PARTITIONS; p++) {
            try {
                for (ReplicaStatus status : node.admin().replicas(service, p)
                        .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("node", status.node());
                    entry.put("service", service);
                    entry.put("partition", p);
                    entry.put("role", status.role());
                    entry.put("epoch", status.epoch());
                    entry.put("logEnd", status.logEnd());
                    entry.put("version", status.version());
                    entry.put("digest", status.digest());
                    entry.put("error", status.error());
                    replicas.add(entry);
                }
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("node", "");
                entry.put("service", service);
                entry.put("partition", p);
                entry.put("error", "replicas query failed: " + e);
                replicas.add(entry);
            }
        }
        return replicas;
    }

    private String option(String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + ": missing");
        }
        return value;
    }

    private static void emit(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
