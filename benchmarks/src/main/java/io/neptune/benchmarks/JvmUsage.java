package io.neptune.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * What this whole JVM has spent so far: bytes allocated on the heap by each live thread, CPU time
 * of the process, and (on Linux) the voluntary context switches of its threads: each is a thread
 * that went to sleep waiting for something, so per call they count the wake-ups a call costs. Two snapshots around a measured period, divided by the calls completed in
 * it, give the bytes and the CPU time per call of everything in the JVM: callers, client, servers,
 * and the idle background of whatever else runs there (membership heartbeats, timers).
 *
 * <p>Allocation comes from HotSpot's per-thread counters ({@code com.sun.management.ThreadMXBean}),
 * compared thread by thread: a thread that ends between two snapshots takes the bytes it allocated
 * in between with it (JDK 17 has no total that includes ended threads), so a run whose work moves
 * to short-lived threads would read low. The benchmarks' event loops and worker pools live for the
 * whole run.
 *
 * <p>Thread-safety: immutable.
 */
public final class JvmUsage {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** Bytes allocated by each live thread since it started, by thread id. */
    private final Map<Long, Long> allocatedByThread;
    private final long cpuNanos;
    /** Voluntary context switches of the live threads, -1 where {@code /proc} cannot tell. */
    private final long switches;

    private JvmUsage(Map<Long, Long> allocatedByThread, long cpuNanos, long switches) {
        this.allocatedByThread = allocatedByThread;
        this.cpuNanos = cpuNanos;
        this.switches = switches;
    }

    /** This JVM's usage now. */
    public static JvmUsage now() {
        long[] ids = THREADS.getAllThreadIds();
        long[] allocated = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, Long> byThread = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (allocated[i] >= 0) { // -1 for a thread that ended meanwhile
                byThread.put(ids[i], allocated[i]);
            }
        }
        return new JvmUsage(byThread, OS.getProcessCpuTime(), voluntarySwitches());
    }

    /** The sum of {@code voluntary_ctxt_switches} over {@code /proc/self/task/*}, or -1 off Linux. */
    private static long voluntarySwitches() {
        long total = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended while we read: its switches leave with it, as its allocations do
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return total;
    }

    /** Bytes allocated between {@code earlier} and this snapshot by the threads alive at this one. */
    public long allocatedSince(JvmUsage earlier) {
        long bytes = 0;
        for (Map.Entry<Long, Long> thread : allocatedByThread.entrySet()) {
            bytes += thread.getValue() - earlier.allocatedByThread.getOrDefault(thread.getKey(), 0L);
        }
        return bytes;
    }

    /** Voluntary context switches between {@code earlier} and this snapshot, NaN where they cannot be read. */
    public double switchesSince(JvmUsage earlier) {
        return switches < 0 || earlier.switches < 0 ? Double.NaN : switches - earlier.switches;
    }

    /** CPU time of this process between {@code earlier} and this snapshot, ns. */
    public long cpuNanosSince(JvmUsage earlier) {
        return cpuNanos - earlier.cpuNanos;
    }
}
