package io.neptune.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The threads of Neptune nodes running in this JVM, told apart by name: a node's own threads are
 * named {@code neptune-<node>-…} (workers, replication, I/O, yellow page, client deadlines) and its
 * JGroups channel's end in {@code ,<cluster>,<node>}, with {@code " (flags=…)"} on a server node.
 * Every other thread (the JVM's, shared pools, the experiment's) belongs to {@link #OTHER}. Counts
 * and CPU times are of Java threads only: the JIT compilers and the garbage collector are not Java
 * threads, so the process's CPU time less the threads' is what the JVM itself spent.
 *
 * <p>Thread-safety: immutable; samples may be taken from any thread.
 */
final class NodeThreads {
    /** The owner of the threads named after no node. */
    static final String OTHER = "other";

    private final List<String> nodes;

    /** Attributes threads to the nodes named {@code nodes}; no name may end another's with a comma before it. */
    NodeThreads(List<String> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * CPU times at one moment.
     *
     * @param wallNanos {@link System#nanoTime()} when taken
     * @param processNanos this process's CPU time, every thread of the JVM included
     * @param threads each live Java thread's CPU time and owner, by thread id
     */
    record Sample(long wallNanos, long processNanos, Map<Long, ThreadCpu> threads) {
        Sample {
            threads = Map.copyOf(threads);
        }
    }

    /**
     * One thread's CPU time.
     *
     * @param owner the node it works for, or {@link #OTHER}
     * @param nanos its CPU time since it started
     */
    record ThreadCpu(String owner, long nanos) {}

    /**
     * CPU time per second of wall time between two samples, in milliseconds.
     *
     * @param processMillisPerSecond the whole process's
     * @param threadsMillisPerSecond the Java threads', by owner: the nodes in order, then {@link #OTHER}
     */
    record Usage(double processMillisPerSecond, Map<String, Double> threadsMillisPerSecond) {
        Usage {
            threadsMillisPerSecond = Collections.unmodifiableMap(new LinkedHashMap<>(threadsMillisPerSecond));
        }

        /** What no Java thread spent: the JIT compilers', the garbage collector's and the VM's own threads. */
        double jvmMillisPerSecond() {
            return processMillisPerSecond - threadsMillisPerSecond.values().stream().mapToDouble(d -> d).sum();
        }

        /** {@code owner}'s threads' share. */
        double of(String owner) {
            return threadsMillisPerSecond.getOrDefault(owner, 0.0);
        }
    }

    /** The node {@code thread} (a thread name) works for, or {@link #OTHER}. */
    String owner(String thread) {
        for (String node : nodes) {
            if (thread.startsWith("neptune-" + node + "-") || thread.endsWith("," + node)
                    || thread.contains("," + node + " (")) {
                return node;
            }
        }
        return OTHER;
    }

    /** Live Java threads by owner: the nodes in order (0 for one without threads), then {@link #OTHER}. */
    Map<String, Integer> count() {
        Map<String, Integer> counts = owners();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            counts.merge(owner(thread.getName()), 1, Integer::sum);
        }
        return counts;
    }

    /** The process's CPU time and every live Java thread's, now. */
    Sample sample() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, ThreadCpu> threads = new HashMap<>();
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info == null) {
                continue; // ended since the ids were read
            }
            long nanos = mx.getThreadCpuTime(info.getThreadId());
            if (nanos >= 0) { // -1: ended meanwhile, or CPU time measurement is off
                threads.put(info.getThreadId(), new ThreadCpu(owner(info.getThreadName()), nanos));
            }
        }
        return new Sample(System.nanoTime(), os.getProcessCpuTime(), threads);
    }

    /**
     * CPU time per second between {@code from} and {@code to}. A thread started in between counts
     * from zero; one that ended in between is lost to its owner and shows in the JVM's share.
     */
    Usage between(Sample from, Sample to) {
        double seconds = (to.wallNanos() - from.wallNanos()) / 1e9;
        Map<String, Double> byOwner = new LinkedHashMap<>();
        owners().keySet().forEach(owner -> byOwner.put(owner, 0.0));
        to.threads().forEach((id, cpu) -> {
            ThreadCpu before = from.threads().get(id);
            long spent = cpu.nanos() - (before == null ? 0 : before.nanos());
            byOwner.merge(cpu.owner(), spent / 1e6 / seconds, Double::sum);
        });
        return new Usage((to.processNanos() - from.processNanos()) / 1e6 / seconds, byOwner);
    }

    private Map<String, Integer> owners() {
        Map<String, Integer> owners = new LinkedHashMap<>();
        nodes.forEach(node -> owners.put(node, 0));
        owners.put(OTHER, 0);
        return owners;
    }
}
