package io.neptune.benchmarks;

import static io.neptune.benchmarks.IdleExperiment.BASELINE_WINDOW;
import static io.neptune.benchmarks.IdleExperiment.BYTES_PER_KIB;
import static io.neptune.benchmarks.IdleExperiment.BYTES_PER_MIB;
import static io.neptune.benchmarks.IdleExperiment.GC_ROUNDS;
import static io.neptune.benchmarks.IdleExperiment.NODES;
import static io.neptune.benchmarks.IdleExperiment.OBSERVER;
import static io.neptune.benchmarks.IdleExperiment.PREFERRED_TIMEOUT;
import static io.neptune.benchmarks.IdleExperiment.REPLICAS;
import static io.neptune.benchmarks.IdleExperiment.REPORT;
import static io.neptune.benchmarks.IdleExperiment.SETTLE;
import static io.neptune.benchmarks.IdleExperiment.modeNames;
import static io.neptune.benchmarks.IdleExperiment.nodeName;

import io.neptune.benchmarks.IdleExperiment.Measurement;
import io.neptune.benchmarks.IdleExperiment.Plan;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * How {@link IdleExperiment} reports its cases: the table with the method and the run's context as
 * notes, the heap per replica added between cases, and the per-owner formatting of threads and CPU.
 *
 * <p>Thread-safety: stateless.
 */
final class IdleReport {
    private IdleReport() {}

    /** The threads the case added by owner: the hosting nodes', then the observer's and the rest. */
    static String threads(Measurement m) {
        return perOwner(m.threadDelta(), String::valueOf);
    }

    /** {@code values} (by {@link NodeThreads} owner) as "a / b / c; observer d; other e". */
    static <T> String perOwner(Map<String, T> values, Function<T, String> format) {
        String nodes = IntStream.range(0, NODES).mapToObj(i -> values.get(nodeName(i)))
                .map(v -> v == null ? "-" : format.apply(v)).collect(Collectors.joining(" / "));
        T observer = values.get(OBSERVER);
        T other = values.get(NodeThreads.OTHER);
        return nodes + "; observer " + (observer == null ? "-" : format.apply(observer)) + "; other "
                + (other == null ? "-" : format.apply(other));
    }

    /**
     * Heap per replica added over the next smaller partition count measured in the same mode, in KiB,
     * by case: what one more hosted replica costs, without the fixed costs that
     * {@link Measurement#kibPerHostedReplica()} spreads over the replicas.
     */
    static Map<Measurement, Double> marginalKibPerReplica(List<Measurement> measurements) {
        List<Measurement> sorted = measurements.stream().sorted(Comparator.comparing(Measurement::mode)
                .thenComparingInt(Measurement::partitions)).toList();
        Map<Measurement, Double> marginal = new IdentityHashMap<>();
        for (int i = 1; i < sorted.size(); i++) {
            Measurement smaller = sorted.get(i - 1);
            Measurement larger = sorted.get(i);
            if (larger.mode() == smaller.mode() && larger.partitions() > smaller.partitions()) {
                marginal.put(larger, (larger.heapDeltaBytes() - smaller.heapDeltaBytes()) / BYTES_PER_KIB
                        / (larger.hostedReplicas() - smaller.hostedReplicas()));
            }
        }
        return marginal;
    }

    /** The table, one row per case, with the method, the aims and the run's context as notes. */
    static Report report(Plan plan, List<Measurement> measurements, List<String> failures, String head,
            String context) {
        Report report = new Report(REPORT, "Idle cost of a node by hosted partitions", "partitions", "mode",
                "start s", "of which start calls s", "preferred primaries s", "CPU per node % core",
                "node threads % core", "process CPU ms/s", "observer ms/s", "JIT, GC and other ms/s", "baseline ms/s",
                "epoch changes while idle", "thread delta", "threads added (nodes; observer; other)",
                "heap delta MiB", "KiB per hosted replica", "KiB per added replica", "load 1m");
        Map<Measurement, Double> marginal = marginalKibPerReplica(measurements);
        for (Measurement m : measurements) {
            Double added = marginal.get(m);
            report.row(m.partitions(), m.mode().configName(), m.startSeconds(), m.nodeStartSeconds(),
                    Double.isNaN(m.preferredSeconds()) ? String.format(Locale.ROOT, "> %.0f", m.startSeconds()
                            + PREFERRED_TIMEOUT.toSeconds()) : m.preferredSeconds(), m.cpuPerNodePercent(), m.nodeThreadsPercent(),
                    m.idle().processMillisPerSecond(), m.idle().of(OBSERVER), m.restMillisPerSecond(),
                    m.baselineCpuMillisPerSecond(), m.epochChanges(), m.threadDeltaTotal(), threads(m),
                    m.heapDeltaBytes() / BYTES_PER_MIB, m.kibPerHostedReplica(), added == null ? "-" : added,
                    m.load());
        }
        report.note("Aim (issue 26): a node hosting 500 partitions × 3 replicas starts in under 10 s, idles under 5%"
                + " of a core, and keeps heap per hosted partition under 100 KiB beyond its data.");
        report.note("Method: per partition count N, a fresh cluster in one JVM on the loopback JGroups stack with the"
                + " production membership timing (announcements every 1 s, expiry 5 s): " + NODES + " nodes that each"
                + " host partitions 0..N-1 of a level-2 counter service (" + REPLICAS + " replicas per partition, "
                + modeNames(plan.modes()) + " fail-over, one case each, the replica on node p mod 3 preferred as"
                + " primary) and an"
                + " observer that hosts nothing and makes the calls. 'start s' runs from the first hosting node's"
                + " start call (the observer is up already) until the observer's yellow page shows every partition"
                + " with a primary and " + REPLICAS + " serving replicas; the nodes start one after the other, and"
                + " 'of which start calls s' is the time spent in their start calls. 'preferred primaries s' runs"
                + " from the same start until every partition is led by its preferred replica: the first primaries"
                + " are whichever replicas formed a majority first, and hand over by priority afterwards. Then one"
                + " write goes to every partition and the cluster settles for " + SETTLE.toSeconds() + " s before the"
                + " idle window of " + plan.idle().toSeconds() + " s.");
        report.note("CPU over the idle window: 'process CPU' is this JVM's CPU time per second, and 'CPU per node'"
                + " that divided by " + NODES + ", with the observer, the JIT compilers and the GC included. 'node"
                + " threads' is the CPU time of the threads named after a hosting node (neptune-<node>-… and its"
                + " JGroups channel's), averaged over the " + NODES + ": a node's own cost. 'observer' is the"
                + " observer's threads (its client's deadline timer among them), and 'JIT, GC and other' the rest of"
                + " the process's: in a fresh JVM the JIT keeps compiling the idle paths (heartbeats, announcements)"
                + " for minutes, a cost a long-running node no longer pays. 'baseline' is the process's CPU time"
                + " per second over " + BASELINE_WINDOW.toSeconds() + " s before the case's nodes started. 'epoch"
                + " changes while idle' counts the partitions whose highest replica epoch changed over the idle"
                + " window (an election: a healthy idle cluster has none).");
        report.note("Threads and heap are measured after the idle window against the same measures before the"
                + " case's nodes started. 'threads added' attributes the threads like the CPU; 'other' is the rest"
                + " of the delta (shared pools). The heap is read after " + GC_ROUNDS + " System.gc() calls; 'KiB"
                + " per hosted replica' divides the whole delta by " + REPLICAS + " × N, so it also spreads the"
                + " observer and each node's fixed cost over the replicas and overstates the cost of one replica,"
                + " most at small N. 'KiB per added replica' is the heap delta's growth over the next smaller N"
                + " measured, per replica added: the cost of one more hosted replica. Each partition holds one"
                + " counter, so neither figure includes data to speak of.");
        report.note("JVM: max heap " + Math.round(Runtime.getRuntime().maxMemory() / BYTES_PER_MIB) + " MiB, "
                + ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                        .collect(Collectors.joining(" and ")) + "; " + Runtime.getRuntime().availableProcessors()
                + " cores. Git HEAD: " + head + ".");
        if (!failures.isEmpty()) {
            report.note("Failed cases (not in the table): " + String.join("; ", failures) + ".");
        }
        report.note(context + " 'load 1m' is the host's one-minute load average when that case began.");
        return report;
    }
}
