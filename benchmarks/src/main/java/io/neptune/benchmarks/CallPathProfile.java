package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.core.internal.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;

/**
 * Profiles the fixed-node call path of {@code ./neptune bench overhead} with async-profiler (its
 * Java API and native library come from the Maven Central artifact {@code tools.profiler:async-profiler}):
 * for each system, a CPU profile (perf events, with the thread as the root frame, kernel frames
 * included) and an allocation profile (TLAB-driven sampling, weighted by bytes), each while a
 * closed loop keeps that many calls outstanding. Writes under {@code docs/benchmarks/}:
 *
 * <ul>
 *   <li>{@code call-path-<system>-cpu.svg} and {@code -alloc.svg}: flame graphs ({@link FlameGraph});
 *   <li>{@code call-path-profile.md}: per system, CPU per thread group and the heaviest frames, and
 *       the allocation sites in bytes per call.
 * </ul>
 *
 * <p>The stacks the graphs are drawn from (async-profiler's collapsed format, tens of MB for a CPU
 * profile, so not committed) go to {@code benchmarks/target/call-path-profiles/}.
 *
 * <p>Systems: {@code fixed} (Neptune to a single replica, {@code echo}: the method runs on a worker),
 * {@code non-blocking} (the same with {@code @Read(blocking = false)}: it runs on the server's I/O
 * thread), {@code raw} (raw Netty TCP ping-pong, the floor), and {@code load-aware} and {@code p2c}
 * (the two balancing policies of the overhead bench over the same two replicas). Nodes and callers
 * share this JVM, as in the overhead bench.
 *
 * <p>Usage: {@code ./neptune bench profile [--quick] [--callers N]
 * [--systems fixed,non-blocking,raw,load-aware,p2c] [--tag NAME]}; a tag goes into the file names ({@code call-path-NAME-fixed-cpu.svg}) so that a
 * profile of another commit can sit beside the current one.
 */
public final class CallPathProfile {
    /** CPU sampling interval, ns. */
    private static final long CPU_INTERVAL_NANOS = 1_000_000;
    /** Allocation sampling interval, bytes. */
    private static final long ALLOC_INTERVAL_BYTES = 64 * 1024;
    private static final Map<String, String> LABELS = Map.of("fixed", InvocationOverheadExperiment.FIXED,
            "non-blocking", InvocationOverheadExperiment.INLINE, "raw", InvocationOverheadExperiment.RAW,
            "load-aware", InvocationOverheadExperiment.LOAD_AWARE, "p2c", InvocationOverheadExperiment.P2C);

    private CallPathProfile() {}

    /** One profile: the stacks and the calls completed while it ran. */
    private record Profile(String system, String event, String collapsed, ClosedLoop.Result result) {}

    /** Runs the profiles; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        boolean quick = false;
        int callers = 64;
        List<String> systems = List.of("fixed", "non-blocking");
        String tag = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--callers" -> callers = Integer.parseInt(value(args, ++i, "--callers"));
                case "--systems" -> systems = List.of(value(args, ++i, "--systems").split(","));
                case "--tag" -> tag = value(args, ++i, "--tag") + "-";
                default -> throw new IllegalArgumentException("argument: '" + args[i]
                        + "' (expected: --quick, --callers N, --systems fixed,non-blocking,raw,load-aware,p2c or --tag NAME)");
            }
        }
        for (String system : systems) {
            if (!LABELS.containsKey(system)) {
                throw new IllegalArgumentException("system: '" + system
                        + "' (expected: fixed, non-blocking, raw, load-aware or p2c)");
            }
        }
        Duration warmUp = Duration.ofSeconds(quick ? 10 : 20);
        Duration measure = Duration.ofSeconds(quick ? 5 : 20);
        Path root = Report.repositoryRoot();
        Path directory = Files.createDirectories(root.resolve("docs").resolve("benchmarks"));
        Path stacks = Files.createDirectories(root.resolve("benchmarks").resolve("target").resolve("call-path-profiles"));
        String command = "./neptune bench profile" + String.join(" ", args).transform(a -> a.isEmpty() ? "" : " " + a);
        String loadBefore = Report.loadAverage();
        AsyncProfiler profiler = AsyncProfiler.getInstance();
        System.out.printf(Locale.ROOT, "call path profile: async-profiler %s, %s at %d callers, %d s per profile;"
                + " load average %s%n", profiler.getVersion(), systems, callers, measure.toSeconds(), loadBefore);
        List<Profile> profiles = new ArrayList<>();
        byte[] payload = Json.mapper().writeValueAsBytes(EchoCluster.PING);
        CallOptions random = CallOptions.builder().policy(BalancingPolicy.RANDOM).build();
        try (NettyTcpEcho raw = new NettyTcpEcho(payload); EchoCluster neptune = EchoCluster.start()) {
            Map<String, Supplier<CompletableFuture<?>>> calls = new LinkedHashMap<>();
            calls.put("fixed", () -> neptune.echo(EchoCluster.FIXED_PARTITION, random));
            calls.put("non-blocking", () -> neptune.echo(EchoCluster.FIXED_PARTITION, "echoInline", random));
            calls.put("raw", raw::roundTripAsync);
            CallOptions loadAware = CallOptions.builder().policy(BalancingPolicy.LOAD_AWARE).build();
            CallOptions p2c = CallOptions.builder().policy(BalancingPolicy.P2C).build();
            calls.put("load-aware", () -> neptune.echo(EchoCluster.SHARED_PARTITION, loadAware));
            calls.put("p2c", () -> neptune.echo(EchoCluster.SHARED_PARTITION, p2c));
            for (String system : systems) { // all of them first, so that the JIT is done before any profile
                new ClosedLoop(requireNonNull(calls.get(system), system)).run(callers, warmUp, Duration.ofMillis(1));
            }
            for (String system : systems) {
                for (String event : List.of("cpu", "alloc")) {
                    profiles.add(profile(profiler, system, event, requireNonNull(calls.get(system), system), callers,
                            measure));
                }
            }
        }
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        StringBuilder md = new StringBuilder("# Call path profile (" + tag.replace("-", "").transform(
                t -> t.isEmpty() ? "" : t + ", ") + date + ")\n\n");
        md.append("Machine: ").append(Report.machine()).append(". Command: `").append(command).append("`. Load average"
                + " (1, 5, 15 min) ").append(loadBefore).append(" at the start, ").append(Report.loadAverage())
                .append(" at the end. async-profiler ").append(profiler.getVersion()).append(": CPU by perf events every ")
                .append(CPU_INTERVAL_NANOS / 1000).append(" µs of CPU time (kernel frames included), allocations"
                + " sampled every ").append(ALLOC_INTERVAL_BYTES / 1024).append(" KiB and weighted by bytes. Each"
                + " profile ran ").append(measure.toSeconds()).append(" s at ").append(callers).append(" callers after ")
                .append(warmUp.toSeconds()).append(" s of warm-up of each system; nodes and callers share one JVM,"
                + " so every figure covers both ends of a call and the load generator.\n\n");
        for (Profile p : profiles) {
            String stem = "call-path-" + tag + p.system() + "-" + p.event();
            Files.writeString(stacks.resolve(stem + ".collapsed"), p.collapsed());
            String subtitle = String.format(Locale.ROOT, "%s, %d callers, %,.0f calls/s while profiled; %s; %s",
                    LABELS.get(p.system()), callers, p.result().throughput(), date, command);
            boolean cpu = p.event().equals("cpu");
            String title = (cpu ? "CPU" : "Allocations") + ": " + LABELS.get(p.system());
            Files.writeString(directory.resolve(stem + ".svg"), FlameGraph.parse(p.collapsed()).svg(title, subtitle,
                    cpu ? "samples" : "bytes"));
            md.append(cpu ? cpuSummary(p, stem) : allocSummary(p, stem));
            System.out.printf(Locale.ROOT, "wrote docs/benchmarks/%s.svg (%,.0f calls/s, %.0f B/call measured by"
                    + " ThreadMXBean)%n", stem, p.result().throughput(), p.result().bytesPerCall());
        }
        Files.writeString(directory.resolve("call-path-" + tag + "profile.md"), md);
        System.out.println("wrote docs/benchmarks/call-path-" + tag + "profile.md");
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + ": no value (expected: one after it)");
        }
        return args[i];
    }

    private static Profile profile(AsyncProfiler profiler, String system, String event,
            Supplier<CompletableFuture<?>> call, int callers, Duration measure) throws Exception {
        String options = event.equals("cpu") ? "event=cpu,interval=" + CPU_INTERVAL_NANOS + ",threads"
                : "event=alloc,alloc=" + ALLOC_INTERVAL_BYTES;
        profiler.execute("start," + options);
        ClosedLoop.Result result;
        try {
            result = new ClosedLoop(call).run(callers, Duration.ZERO, measure);
        } finally {
            profiler.execute("stop");
        }
        String collapsed = profiler.dumpCollapsed(event.equals("cpu") ? Counter.SAMPLES : Counter.TOTAL);
        System.out.printf(Locale.ROOT, "%s %s: %,.0f calls/s, p50 %.1f µs, %.0f B/call, CPU %.1f µs/call%n", system,
                event, result.throughput(), result.p50(), result.bytesPerCall(), result.cpuMicrosPerCall());
        return new Profile(system, event, collapsed, result);
    }

    /** CPU per thread group and the heaviest frames of their own (leaves), in µs per call. */
    private static String cpuSummary(Profile p, String stem) {
        double calls = Math.max(1, p.result().calls());
        double microsPerSample = CPU_INTERVAL_NANOS / 1e3;
        Map<String, Long> threads = FlameGraph.sumBy(p.collapsed(), frames -> threadGroup(frames[0]));
        long samples = threads.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "## CPU: %s ([flame graph](%s.svg))%n%n"
                + "%,.0f calls/s while profiled; %,d samples, %.1f µs of CPU per call (the process's CPU time over the"
                + " same calls, measured apart: %.1f µs).%n%n| thread | share | µs per call |%n| --- | ---: | ---: |%n",
                LABELS.get(p.system()), stem, p.result().throughput(), samples, samples * microsPerSample / calls,
                p.result().cpuMicrosPerCall()));
        long others = 0;
        for (Map.Entry<String, Long> thread : threads.entrySet()) {
            if (thread.getValue() * 100 < samples) { // under 1%
                others += thread.getValue();
                continue;
            }
            md.append(String.format(Locale.ROOT, "| %s | %.1f%% | %.2f |%n", thread.getKey(),
                    100.0 * thread.getValue() / samples, thread.getValue() * microsPerSample / calls));
        }
        md.append(String.format(Locale.ROOT, "| (threads under 1%% each) | %.1f%% | %.2f |%n", 100.0 * others / samples,
                others * microsPerSample / calls));
        md.append("\n| frame (self) | share | µs per call |\n| --- | ---: | ---: |\n");
        FlameGraph.sumBy(p.collapsed(), frames -> FlameGraph.label(frames[frames.length - 1])).entrySet().stream()
                .limit(15).forEach(e -> md.append(String.format(Locale.ROOT, "| `%s` | %.1f%% | %.2f |%n", e.getKey(),
                        100.0 * e.getValue() / samples, e.getValue() * microsPerSample / calls)));
        return md.append('\n').toString();
    }

    /** The thread group of a root frame {@code [name tid=N]}: the name with its numbers replaced by N. */
    static String threadGroup(String root) {
        String name = root.startsWith("[") ? root.substring(1, root.length() - 1) : root;
        return name.replaceAll(" tid=\\d+", "").replaceAll("\\d+", "N");
    }

    /** The allocation sites, in bytes per call: the nearest Neptune frame and what it called, with the types. */
    private static String allocSummary(Profile p, String stem) {
        double calls = Math.max(1, p.result().calls());
        Map<String, Long> sitesAndTypes = FlameGraph.sumBy(p.collapsed(), CallPathProfile::allocationSite);
        Map<String, Long> sites = new LinkedHashMap<>();
        Map<String, List<String>> types = new LinkedHashMap<>();
        sitesAndTypes.forEach((siteAndType, bytes) -> {
            String[] parts = siteAndType.split(" \\| ");
            sites.merge(parts[0], bytes, Long::sum);
            types.computeIfAbsent(parts[0], s -> new ArrayList<>()).add(String.format(Locale.ROOT, "%s %.0f", parts[1],
                    bytes / calls));
        });
        long bytes = sites.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "## Allocations: %s ([flame graph](%s.svg))%n%n"
                + "%,.0f calls/s while profiled; %.0f bytes per call sampled (%.0f counted by the threads' allocation"
                + " counters over the same calls). Sites of at least 1%%, heaviest first, with their heaviest types"
                + " (bytes per call).%n%n| site (nearest Neptune frame → its callee) | bytes per call | share | types |%n"
                + "| --- | ---: | ---: | --- |%n", LABELS.get(p.system()), stem, p.result().throughput(), bytes / calls,
                p.result().bytesPerCall()));
        long others = 0;
        for (Map.Entry<String, Long> site : sites.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).toList()) {
            if (site.getValue() * 100 < bytes) {
                others += site.getValue();
                continue;
            }
            List<String> siteTypes = types.getOrDefault(site.getKey(), List.of());
            md.append(String.format(Locale.ROOT, "| `%s` | %.0f | %.1f%% | %s |%n", site.getKey(),
                    site.getValue() / calls, 100.0 * site.getValue() / bytes,
                    String.join(", ", siteTypes.subList(0, Math.min(4, siteTypes.size())))));
        }
        md.append(String.format(Locale.ROOT, "| (sites under 1%% each) | %.0f | %.1f%% | |%n", others / calls,
                100.0 * others / bytes));
        return md.append('\n').toString();
    }

    /**
     * {@code site | type} of an allocation stack: the frame nearest the allocation that is Neptune's
     * (else the nearest outside the JDK), with the frame it called on the way to the allocation.
     */
    static String allocationSite(String[] frames) {
        String type = FlameGraph.label(frames[frames.length - 1]);
        int site = -1;
        for (int i = frames.length - 2; i >= 0 && site < 0; i--) {
            if (frames[i].startsWith("io/neptune/") || frames[i].startsWith("io.neptune.")) {
                site = i;
            }
        }
        for (int i = frames.length - 2; i >= 0 && site < 0; i--) {
            if (!frames[i].matches("(java|jdk|sun)[/.].*")) {
                site = i;
            }
        }
        if (site < 0) {
            return "(JDK only) | " + type;
        }
        String callee = site + 1 < frames.length - 1 ? " → " + FlameGraph.label(frames[site + 1]) : "";
        return FlameGraph.label(frames[site]) + callee + " | " + type;
    }
}
