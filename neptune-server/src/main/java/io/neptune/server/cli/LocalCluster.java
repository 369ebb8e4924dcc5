package io.neptune.server.cli;

import io.neptune.core.NeptuneException;
import io.neptune.server.NodeConfigFile;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Node processes on this machine, each a separate JVM running {@code neptune node} ({@link NeptuneCli})
 * with this JVM's class path: the demo, the benchmarks and tests start clusters with it. Each child
 * exits when this process ends, however it ends (the child watches its parent's pid), and
 * {@link #close()} kills any that remain.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LocalCluster implements AutoCloseable {
    /**
     * JVM options of a node process: small heap, as the machine has 2 cores and few GiB to spare, and
     * Neptune's INFO lines in its log, whether the class path logs through the examples' Logback config
     * ({@code neptune.log.level}; the format follows this process's {@code NEPTUNE_LOG_FORMAT}, which
     * the child inherits) or through slf4j-simple (the benchmarks).
     */
    public static final List<String> NODE_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC",
            "-Dneptune.log.level=INFO", "-Dorg.slf4j.simpleLogger.log.io.neptune=info",
            "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");

    /** How long {@link #start} waits for a node to report it is serving. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path workDirectory;
    private final Path logDirectory;
    private final List<String> jvmOptions;
    private final String mainClass;
    private final Map<String, Process> processes = new ConcurrentHashMap<>();
    /** Set once {@link #close} begins: a node it stops while it starts did not fail on its own. */
    private volatile boolean closing;

    /**
     * Creates an empty cluster whose configs go to {@code workDirectory} and logs to {@code logDirectory},
     * its nodes started with {@link #NODE_JVM_OPTIONS}.
     */
    public LocalCluster(Path workDirectory, Path logDirectory) {
        this(workDirectory, logDirectory, NODE_JVM_OPTIONS);
    }

    /**
     * Creates an empty cluster like {@link #LocalCluster(Path, Path)} whose nodes run with
     * {@code jvmOptions} instead (e.g. a smaller heap when many nodes share the machine).
     */
    public LocalCluster(Path workDirectory, Path logDirectory, List<String> jvmOptions) {
        this(workDirectory, logDirectory, jvmOptions, NeptuneCli.class.getName());
    }

    /**
     * Creates an empty cluster like {@link #LocalCluster(Path, Path, List)} whose node processes run
     * {@code mainClass} instead of {@link NeptuneCli}: a main of this class path that prepares the JVM
     * (the demo installs its OpenTelemetry SDK) and then runs {@link NeptuneCli#main} with the same arguments.
     */
    public LocalCluster(Path workDirectory, Path logDirectory, List<String> jvmOptions, String mainClass) {
        this.workDirectory = workDirectory;
        this.logDirectory = logDirectory;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.mainClass = mainClass;
        try {
            Files.createDirectories(workDirectory);
            Files.createDirectories(logDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts node {@code config.node()} from {@code config} (written as YAML, {@link NodeConfigFile#toYaml()})
     * and waits until it is serving, like {@link #start(String, String)}.
     */
    public Process start(NodeConfigFile config) {
        return start(config.node().node().toString(), config.toYaml());
    }

    /**
     * Starts node {@code name} with the YAML {@code config} and waits until it is serving, at most
     * {@link #START_TIMEOUT}; returns the running process instead if there is one. A process that
     * ended on its own (a crash) does not count: it is replaced.
     *
     * @throws NeptuneException if the node does not become ready in time (its process is killed)
     */
    public Process start(String name, String config) {
        Process running = processes.get(name);
        if (running != null && running.isAlive()) {
            return running;
        }
        try {
            Path configFile = workDirectory.resolve(name + ".yaml");
            Files.writeString(configFile, config);
            Path log = logDirectory.resolve(name + ".log");
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(mainClass);
            command.addAll(List.of("node", "--config", configFile.toString(),
                    "--parent-pid", Long.toString(ProcessHandle.current().pid())));
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(false)
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            processes.put(name, process);
            try {
                awaitReady(name, process, log);
            } catch (RuntimeException e) {
                processes.remove(name, process);
                throw e;
            }
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + name, e);
        }
    }

    private void awaitReady(String name, Process process, Path log) {
        java.util.concurrent.CompletableFuture<Void> ready = new java.util.concurrent.CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            ready.completeExceptionally(new IllegalStateException("exited"));
        }, "neptune-local-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
        try {
            ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NeptuneException("interrupted while starting node " + name, e);
        } catch (java.util.concurrent.TimeoutException e) {
            process.destroyForcibly();
            throw new NeptuneException("node " + name + " did not start (not serving within "
                    + START_TIMEOUT.toSeconds() + " s, killed); see " + log);
        } catch (java.util.concurrent.ExecutionException e) {
            process.destroyForcibly();
            if (closing) { // close() stopped it: no failure of the node's own
                throw new NeptuneException("node " + name + " was still starting when the cluster stopped; see " + log);
            }
            throw new NeptuneException("node " + name + " did not start (exit " + exitOf(process) + "); see " + log);
        }
    }

    private static String exitOf(Process process) {
        try {
            return process.waitFor(2, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** The running node processes by name; those that ended on their own are dropped here. */
    public Map<String, Process> processes() {
        processes.values().removeIf(process -> !process.isAlive());
        return Map.copyOf(processes);
    }

    /** Kills node {@code name} with SIGKILL and waits for it to end. */
    public void kill(String name) {
        Process process = processes.remove(name);
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops every node: SIGTERM first, SIGKILL for those still alive after 10 s. */
    @Override
    public void close() {
        closing = true;
        processes.values().forEach(Process::destroy);
        for (Process process : processes.values()) {
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        processes.clear();
    }
}
