package io.neptune.server.process.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a program as the leader of its own process group, kills the whole group, and reads the
 * group's CPU time from {@code /proc}.
 *
 * <p>The program runs under {@code setsid} (util-linux), which makes it a new session and process
 * group leader and then execs it in place, so the {@link Process}'s pid is the group id. A kill
 * sends SIGKILL to the group ({@code kill -s KILL -- -pgid}: atomic in the kernel, so a child being
 * forked cannot escape) and then to every descendant still known to the JVM (a process that moved
 * to a group of its own is still found there while its parent lives). Where {@code setsid} or
 * {@code kill} is missing (not Linux), only descendants are killed, which misses a grandchild whose
 * parent already exited; a warning says so once.
 *
 * <p>Thread-safety: stateless; safe from any thread.
 */
public final class ProcessTree {
    private static final Logger logger = LoggerFactory.getLogger(ProcessTree.class);
    private static final @Nullable String SETSID = onPath("setsid");
    private static final @Nullable String KILL = onPath("kill");
    private static final long NANOS_PER_TICK = clockTickNanos();

    static {
        if (SETSID == null || KILL == null) {
            logger.warn("process services: no {} on PATH; a killed program's descendants are found through the JVM's"
                    + " process table only, so one that a parent left behind can survive", SETSID == null ? "setsid"
                    : "kill");
        }
    }

    private ProcessTree() {}

    /**
     * Starts {@code argv} in {@code directory} (null: the node's) with {@code environment} added, in a
     * new process group, once {@link #requireExecutable} found {@code program}, the command's first element.
     */
    public static Process start(String program, List<String> argv, @Nullable Path directory,
            Map<String, String> environment) throws IOException {
        requireExecutable(program, directory, environment);
        List<String> command = new ArrayList<>();
        if (SETSID != null) {
            command.add(SETSID);
        }
        command.addAll(argv);
        ProcessBuilder builder = new ProcessBuilder(command);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        builder.environment().putAll(environment);
        return builder.start();
    }

    /**
     * Checks that {@code program} can be run: a name without {@code /} must be an executable file
     * in a directory of the {@code PATH} ({@code environment}'s, else the node's), a path must be
     * one (relative to {@code directory}). The wrapper shell would otherwise report a missing
     * program only as its exit code 127, like a program that failed.
     *
     * @throws IOException saying what is missing and where it was looked for
     */
    static void requireExecutable(String program, @Nullable Path directory, Map<String, String> environment)
            throws IOException {
        if (program.contains("/")) {
            Path path = directory == null ? Path.of(program) : directory.resolve(program);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IOException("'" + program + "' is not an executable file");
            }
            return;
        }
        String searchPath = environment.getOrDefault("PATH", System.getenv().getOrDefault("PATH", ""));
        for (String entry : searchPath.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(entry.isEmpty() ? "." : entry).resolve(program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return;
            }
        }
        throw new IOException("'" + program + "' is not on the PATH (" + searchPath + ")");
    }

    /**
     * Kills {@code process}'s group and every descendant of it with SIGKILL, and waits up to
     * {@code wait} for the leader to be gone. Idempotent; safe on an exited process.
     *
     * <p>The JVM's ends of the process's pipes stay open, so what it wrote before it died can still
     * be read to the end ({@link Process#destroyForcibly()} would close them under a reader that has
     * not got there yet). Whoever reads them closes them, or calls {@link #killAndClose}.
     */
    public static void kill(Process process, Duration wait) {
        List<ProcessHandle> descendants = process.descendants().toList();
        if (SETSID != null && KILL != null) {
            killGroup(process.pid());
        }
        process.toHandle().destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@link #kill}s {@code process}'s tree, then closes the JVM's ends of its pipes, which also
     * wakes a thread blocked on one of them when a process that escaped the kill still holds the other end.
     */
    public static void killAndClose(Process process, Duration wait) {
        kill(process, wait);
        process.destroyForcibly(); // the process is gone: this only closes its pipes
    }

    private static void killGroup(long pgid) {
        try {
            // "-KILL", not "-s KILL": procps-ng's kill(1) takes "-s KILL -- -N" for a usage error when N < 65
            // (the first process groups of a new pid namespace: any container)
            Process kill = new ProcessBuilder(KILL, "-KILL", "--", "-" + pgid)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) { // kill(1) does not block; this is a broken system
                kill.destroyForcibly();
            } else if (kill.exitValue() != 0 && ProcessHandle.of(pgid).map(ProcessHandle::isAlive).orElse(false)) {
                logger.warn("{} -KILL -- -{} failed (exit {}): the process group may live on", KILL, pgid,
                        kill.exitValue());
            }
        } catch (IOException e) {
            logger.warn("cannot run {} to kill process group {}: {}", KILL, pgid, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The CPU time (user + system) of {@code process}, the children it reaped, and its live
     * descendants, from {@code /proc}; zero where there is no {@code /proc}.
     */
    public static Duration cpu(ProcessHandle process) {
        long ticks = ticks(process.pid()).orElse(0L);
        for (ProcessHandle descendant : process.descendants().toList()) {
            ticks += ticks(descendant.pid()).orElse(0L);
        }
        return Duration.ofNanos(ticks * NANOS_PER_TICK);
    }

    /** {@link #cpu} of a {@code /proc/<pid>/stat} line, read by the process itself: its utime + stime + cutime + cstime. */
    public static Optional<Duration> cpuOfStat(String stat) {
        return parseTicks(stat).map(t -> Duration.ofNanos(t * NANOS_PER_TICK));
    }

    private static Optional<Long> ticks(long pid) {
        try {
            return parseTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) { // gone meanwhile, or no /proc
            return Optional.empty();
        }
    }

    /** Fields 14-17 of proc(5)'s stat line, counted after the parenthesized command name, which may hold spaces. */
    private static Optional<Long> parseTicks(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return Optional.empty();
        }
        String[] fields = stat.substring(close + 1).trim().split("\\s+");
        if (fields.length < 15) {
            return Optional.empty();
        }
        try {
            long ticks = 0;
            for (int field = 14; field <= 17; field++) {
                ticks += Long.parseLong(fields[field - 3]);
            }
            return Optional.of(ticks);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static @Nullable String onPath(String program) {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/bin:/bin" : path).split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }

    /** USER_HZ from {@code getconf CLK_TCK}; 100, the value on every common Linux architecture, if that fails. */
    private static long clockTickNanos() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
                long hz = Long.parseLong(out);
                if (hz > 0) {
                    return 1_000_000_000L / hz;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // fall through to the common value
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 10_000_000L;
    }
}
