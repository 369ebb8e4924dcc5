package io.neptune.benchmarks.nemesis;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.neptune.server.NamespaceNetwork;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The bench's handle on the {@link WorkloadAgent} JVM, which runs in the client's network namespace:
 * starts it, sends its commands and parses its answers. The agent's PROGRESS lines go to a
 * listener; its log (stderr) to {@code client.log.err} in the run's log directory.
 *
 * <p>Thread-safety: thread-safe; one command is outstanding at a time.
 */
final class WorkloadClient implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(200);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(120);
    private static final TypeReference<Map<Integer, List<String>>> PRIMARIES = new TypeReference<>() {};
    private static final TypeReference<List<Map<String, Object>>> REPLICAS = new TypeReference<>() {};
    private static final TypeReference<Map<Integer, Map<String, String>>> HOSTS = new TypeReference<>() {};

    private final ChildProcess agent;
    private final Map<Long, CompletableFuture<String>> placements;
    private final AtomicLong placementIds = new AtomicLong();
    private final ObjectMapper json = new ObjectMapper();

    private WorkloadClient(ChildProcess agent, Map<Long, CompletableFuture<String>> placements) {
        this.agent = agent;
        this.placements = placements;
    }

    /**
     * Starts the agent in the client namespace and waits until it sees every partition served.
     *
     * @param settings the workload: processes, keys, think time, seed
     * @param history where the agent writes the history
     * @param progress receives the agent's PROGRESS lines
     */
    static WorkloadClient start(NamespaceNetwork network, NemesisCluster cluster, NemesisRun.Settings settings,
            Path work, Path logs, Path history, Consumer<String> progress) {
        Path config = work.resolve("config").resolve("client.yaml");
        cluster.agentConfig(settings.callTimeout()).write(config);
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", network.clientNamespace(),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
                "-Dorg.slf4j.simpleLogger.log.io.neptune=info", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                "-cp", System.getProperty("java.class.path"), WorkloadAgent.class.getName(),
                "--config", config.toString(), "--history", history.toString(),
                "--service", cluster.spec().service(), "--degree", Integer.toString(cluster.spec().degree()),
                "--processes", Integer.toString(settings.processes()), "--keys", Integer.toString(settings.keys()),
                "--think-ms", Long.toString(settings.think().toMillis()), "--seed", Long.toString(settings.seed()),
                "--parent-pid", Long.toString(ProcessHandle.current().pid())));
        // PLACED lines answer calls that run concurrently with the other commands: the reader thread
        // completes their futures, and they never reach awaitLine (which drops what it does not wait for)
        Map<Long, CompletableFuture<String>> placements = new ConcurrentHashMap<>();
        ChildProcess agent = ChildProcess.start("client", command, logs.resolve("client.log"), false,
                l -> !l.startsWith("PROGRESS ") && !l.startsWith("PLACED "), l -> {
                    if (l.startsWith("PROGRESS ")) {
                        progress.accept(l);
                    } else if (l.startsWith("PLACED ")) {
                        placed(placements, l);
                    }
                });
        WorkloadClient client = new WorkloadClient(agent, placements);
        try {
            String ready = agent.awaitLine(l -> l.startsWith("READY") || l.startsWith("NOT-READY"), READY_TIMEOUT,
                    "READY from the workload agent (see client.log.err)");
            if (!ready.equals("READY")) {
                throw new IllegalStateException("the cluster did not become ready: " + ready);
            }
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** Starts the workload; history times count from {@code origin} on {@link System#nanoTime}. */
    synchronized void startWorkload(long origin) {
        agent.send("START " + origin);
    }

    /** The primaries of every partition the agent's yellow page knows now (more than one in a split). */
    synchronized Map<Integer, List<String>> primaries() {
        agent.send("PRIMARIES");
        return parse(agent.awaitLine(l -> l.startsWith("PRIMARIES "), ANSWER_TIMEOUT, "PRIMARIES answer")
                .substring("PRIMARIES ".length()), PRIMARIES);
    }

    /** Every replica of every partition in the agent's yellow page now, with its announced role. */
    synchronized Map<Integer, Map<String, String>> hosts() {
        agent.send("HOSTS");
        return parse(agent.awaitLine(l -> l.startsWith("HOSTS "), ANSWER_TIMEOUT, "HOSTS answer")
                .substring("HOSTS ".length()), HOSTS);
    }

    /**
     * Asks the agent to make a placement call ({@code ClusterAdmin}); the future completes with its
     * answer, or fails with a {@link PlacementRefused} saying why, whenever the agent answers (it does
     * not wait for this call, and other commands go on meanwhile).
     */
    CompletableFuture<String> place(Nemesis.PlacementCall call, Duration timeout) {
        long id = placementIds.incrementAndGet();
        CompletableFuture<String> answer = new CompletableFuture<>();
        placements.put(id, answer);
        synchronized (this) {
            agent.send("PLACE " + id + " " + call.command() + " " + call.partition() + " " + call.node() + " "
                    + Math.max(1, timeout.toMillis()));
        }
        return answer;
    }

    /** The admin refused or failed a placement call. */
    static final class PlacementRefused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PlacementRefused(String message) {
            super(message);
        }
    }

    private static void placed(Map<Long, CompletableFuture<String>> placements, String line) {
        String[] words = line.split(" ", 4);   // PLACED id ok|failed text
        CompletableFuture<String> answer = placements.remove(Long.parseLong(words[1]));
        if (answer == null) {
            return;
        }
        String text = words.length > 3 ? words[3] : "";
        if (words[2].equals("ok")) {
            answer.complete(text);
        } else {
            answer.completeExceptionally(new PlacementRefused(text));
        }
    }

    /** Stops the workload, waiting up to {@code grace} for operations in flight; returns the history's lines. */
    synchronized long stopWorkload(Duration grace) {
        agent.send("STOP " + grace.toMillis());
        String line = agent.awaitLine(l -> l.startsWith("STOPPED "), grace.plus(ANSWER_TIMEOUT), "STOPPED answer");
        return Long.parseLong(line.substring("STOPPED ".length()).trim());
    }

    /** Every replica's state as the replicas answer the agent's admin query now. */
    synchronized List<Map<String, Object>> replicas() {
        agent.send("REPLICAS");
        return parse(agent.awaitLine(l -> l.startsWith("REPLICAS "), ANSWER_TIMEOUT, "REPLICAS answer")
                .substring("REPLICAS ".length()), REPLICAS);
    }

    /** Asks the agent to leave the cluster and exit; kills it if it has not within the grace period. */
    synchronized void quit() {
        if (agent.isAlive()) {
            agent.send("QUIT");
            agent.awaitExitOrKill(Duration.ofSeconds(20));
        }
    }

    private <T> T parse(String text, TypeReference<T> type) {
        try {
            return json.readValue(text, type);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable answer from the workload agent: " + text, e);
        }
    }

    /** Kills the agent if it still runs; idempotent. */
    @Override
    public void close() {
        agent.close();
    }
}
