package io.neptune.benchmarks.writes;

import com.sun.management.OperatingSystemMXBean;
import io.neptune.benchmarks.ClosedLoop;
import io.neptune.benchmarks.ExperimentRun;
import io.neptune.benchmarks.Report;
import io.neptune.core.SecurityConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Issue 12 section 3: the committed writes/s and the p50/p99 commit latency of level-2 writes with
 * 3 replicas, against the same service unreplicated and against Apache Ratis with 3 peers, for
 * 100 B and 4 KB values, 1 and 64 partitions (Raft groups for Ratis) and closed loops of 1 to 256
 * writers ({@link ClosedLoop}: that many writes outstanding). Every system runs in this JVM on
 * 127.0.0.1 with its data in a temporary directory on the same disk, as the other in-JVM cluster
 * experiments do; the systems run one after another per partition count, each in a fresh cluster.
 *
 * <p>Usage: {@code ./neptune bench writes [--quick]}; the report goes to
 * {@code docs/benchmarks/replicated-writes.*} under the working directory. With {@code --tls} it
 * measures Neptune with 3 replicas plaintext against the same with {@code security.tls: required}
 * on every node and the client, on OpenSSL and on the JDK's TLS (issue 23), and writes
 * {@code docs/benchmarks/replicated-writes-tls.*} instead.
 */
public final class WritesExperiment {
    /** Distinct keys written per partition. */
    static final int KEYS = 1000;
    /** The report of the default systems. */
    private static final String REPORT = "replicated-writes";
    /** The report of a {@code --tls} run. */
    private static final String TLS_REPORT = "replicated-writes-tls";
    private static final OperatingSystemMXBean CPU =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** A system under test; labels are CSV cells, so no commas. */
    enum WriteSystem {
        // Neptune and Ratis run next to each other, so drifting host load hits them as alike as it can;
        // so do plaintext and TLS Neptune in a --tls run.
        NEPTUNE("neptune", "Neptune 3 replicas", false, partitions -> NeptuneWrites.start(3, partitions)),
        NEPTUNE_TLS_OPENSSL("tls-openssl", "Neptune 3 replicas TLS (OpenSSL)", true,
                partitions -> NeptuneWrites.start(3, partitions, SecurityConfig.TlsProvider.OPENSSL)),
        NEPTUNE_TLS_JDK("tls-jdk", "Neptune 3 replicas TLS (JDK)", true,
                partitions -> NeptuneWrites.start(3, partitions, SecurityConfig.TlsProvider.JDK)),
        RATIS("ratis", "Ratis 3 peers", false, partitions -> RatisWrites.start(3, partitions)),
        NEPTUNE_UNREPLICATED("unreplicated", "Neptune unreplicated", false,
                partitions -> NeptuneWrites.start(1, partitions));

        /** The name {@code --systems} takes. */
        final String option;
        final String label;
        /** Whether its nodes and client require TLS: measured by {@code --tls}, not by default. */
        final boolean tls;
        final IntFunction<WriteTarget> start;

        WriteSystem(String option, String label, boolean tls, IntFunction<WriteTarget> start) {
            this.option = option;
            this.label = label;
            this.tls = tls;
            this.start = start;
        }
    }

    /**
     * One measured run.
     *
     * @param system the system
     * @param partitions partitions (Raft groups)
     * @param payload bytes of each value
     * @param result throughput and latency (µs)
     * @param cpuPerWrite CPU time of this whole JVM (servers, peers and writers, user and kernel) per write, µs
     * @param load the one-minute load average when the run began
     */
    record Measurement(WriteSystem system, int partitions, int payload, ClosedLoop.Result result, double cpuPerWrite,
            String load) {}

    private WritesExperiment() {}

    /** Runs the experiment; {@code --quick} for the short plan, {@code --help} for the usage. */
    public static void main(String[] args) throws InterruptedException {
        if (WritesPlan.wantsHelp(List.of(args))) {
            System.out.println(WritesPlan.USAGE);
            return;
        }
        WritesPlan plan = WritesPlan.parse(List.of(args));
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "replicated writes (%s): partitions %s,"
                + " payloads %s B, writers %s, runs of %.1f + %.1f s", plan.quick() ? "quick" : "full",
                plan.partitions(), plan.payloads(), plan.writers(), seconds(plan.warmUp()), seconds(plan.measure())));
        Map<WriteSystem, String> durability = new LinkedHashMap<>();
        List<String> stalls = new ArrayList<>();
        List<Measurement> measurements = run(plan, durability, stalls);
        String context = run.finish();
        if (plan.tlsComparison()) {
            Report report = report(plan, measurements, durability, stalls, context, TLS_REPORT,
                    "Replicated writes with TLS on and off", TlsRatios.table(measurements));
            report.write(run.root(), ExperimentRun.command("writes", args));
            System.out.println("wrote docs/benchmarks/" + TLS_REPORT + ".*");
            return;
        }
        if (!plan.complete()) {
            System.out.println("a --systems run writes no report (it would replace the full one with a subset)");
            return;
        }
        Report report = report(plan, measurements, durability, stalls, context, REPORT,
                "Replicated writes: level 2 against unreplicated and Ratis", ratios(measurements, 64));
        report.note("Ratis is configured as its documentation and examples do (issue 26), none of the settings changing"
                + " what is forced; each names its source, a path under " + RatisWrites.RATIS_REPOSITORY + ": "
                + RatisWrites.changedSettings() + ".");
        report.write(run.root(), ExperimentRun.command("writes", args));
        System.out.println("wrote docs/benchmarks/" + REPORT + ".*");
    }

    private static List<Measurement> run(WritesPlan plan, Map<WriteSystem, String> durability,
            List<String> stalls) throws InterruptedException {
        List<Measurement> measurements = new ArrayList<>();
        for (int partitions : plan.partitions()) {
            for (WriteSystem system : plan.order()) {
                long started = System.nanoTime();
                try (WriteTarget target = system.start.apply(partitions)) {
                    durability.putIfAbsent(system, target.durability());
                    ClosedLoop.Result warm = new ClosedLoop(writes(target, partitions, value(plan.payloads().get(0))))
                            .run(16, plan.firstWarmUp(), Duration.ofMillis(1));
                    System.out.printf(Locale.ROOT, "%s, %d partitions: ready in %.1f s, warmed up (%d failures)%n",
                            system.label, partitions, (System.nanoTime() - started) / 1e9, warm.failures());
                    measureAll(plan, system, target, partitions, measurements, stalls);
                }
            }
        }
        return measurements;
    }

    /** Measures every payload and writer count; a run whose writes hang ends this system's runs at this shape. */
    private static void measureAll(WritesPlan plan, WriteSystem system, WriteTarget target, int partitions,
            List<Measurement> measurements, List<String> stalls) throws InterruptedException {
        for (int payload : plan.payloads()) {
            for (int writers : plan.writers()) {
                try {
                    measurements.add(measure(plan, system, target, partitions, payload, writers));
                } catch (IllegalStateException e) { // ClosedLoop: writes still outstanding 30 s after the end
                    String stall = String.format(Locale.ROOT, "%s with %d partitions stalled at %d B and %d writers"
                            + " (%s); its remaining runs at %d partitions were skipped", system.label, partitions,
                            payload, writers, e.getMessage(), partitions);
                    System.out.println(stall);
                    stalls.add(stall);
                    return;
                }
            }
        }
    }

    private static Measurement measure(WritesPlan plan, WriteSystem system, WriteTarget target, int partitions,
            int payload, int writers) throws InterruptedException {
        String load = Report.loadAverage().split(",")[0];
        long cpuBefore = CPU.getProcessCpuTime();
        long began = System.nanoTime();
        ClosedLoop.Result r = new ClosedLoop(writes(target, partitions, value(payload)))
                .run(writers, plan.warmUp(), plan.measure());
        // over warm-up, measured period and drain, with the measured rate standing for the whole run
        double seconds = (System.nanoTime() - began) / 1e9;
        double cpuPerWrite = (CPU.getProcessCpuTime() - cpuBefore) / 1e3 / Math.max(1, r.throughput() * seconds);
        System.out.printf(Locale.ROOT, "%-20s %2d partitions %4d B %3d writers: %7.0f writes/s, p50 %7.2f ms,"
                + " p99 %7.2f ms, CPU %5.0f µs/write, %d failures%s; load %s%n", system.label, partitions, payload,
                writers, r.throughput(), r.p50() / 1e3, r.p99() / 1e3, cpuPerWrite, r.failures(),
                r.firstFailure().isEmpty() ? "" : " (first: " + r.firstFailure() + ")", load);
        return new Measurement(system, partitions, payload, r, cpuPerWrite, load);
    }

    /** Writes of {@code value} spread round-robin over the partitions, each to one of {@value #KEYS} keys. */
    static Supplier<CompletableFuture<?>> writes(WriteTarget target, int partitions, String value) {
        AtomicLong sequence = new AtomicLong();
        return () -> {
            long n = sequence.getAndIncrement();
            return target.put((int) (n % partitions), "key-" + (n / partitions) % KEYS, value);
        };
    }

    /** A value of {@code bytes} ASCII characters. */
    static String value(int bytes) {
        return "0123456789abcdef".repeat(bytes / 16 + 1).substring(0, bytes);
    }

    static String payloadLabel(int payload) {
        return payload % 1024 == 0 ? payload / 1024 + " KB" : payload + " B";
    }

    private static Report report(WritesPlan plan, List<Measurement> measurements,
            Map<WriteSystem, String> durability, List<String> stalls, String context, String name, String title,
            String ratios) {
        Report report = new Report(name, title,
                "system", "partitions", "payload (B)", "writers", "writes", "failures", "writes/s", "p50 (ms)",
                "p99 (ms)", "CPU per write (µs)", "load (1 min)");
        for (Measurement m : measurements) {
            ClosedLoop.Result r = m.result();
            report.row(m.system().label, m.partitions(), m.payload(), r.callers(), r.calls(), r.failures(),
                    r.throughput(), r.p50() / 1e3, r.p99() / 1e3, m.cpuPerWrite(), m.load());
            if (r.throughput() > 0) { // the y axis is logarithmic; a run without a committed write is a table row only
                report.point(String.format(Locale.ROOT, "%s %d part. %s", m.system().label, m.partitions(),
                        payloadLabel(m.payload())), r.callers(), r.throughput());
            }
        }
        report.axes("concurrent writers (writes outstanding)", "committed writes/s", true).logarithmicY()
                .legendOutside();
        report.note(String.format(Locale.ROOT, "Each row: %.1f s warm-up, then %.1f s measured, with that many writes"
                + " outstanding (a closed loop); a write counts when its commit is acknowledged to the writer within"
                + " the measured period, and its latency runs from sending to that acknowledgement. Each system ran"
                + " in a fresh cluster per partition count, first %d s at 16 writers unmeasured. Writes go"
                + " round-robin over the partitions, to %d keys per partition; a Neptune write is a JSON"
                + " request {key, value}, a Ratis write the bytes key=value. Both state machines put the value into"
                + " an in-memory map. Everything runs in one JVM on 127.0.0.1 (Neptune: nodes on the loopback JGroups"
                + " stack plus a node that hosts nothing and sends; Ratis: gRPC transport, one client per group),"
                + " with the logs in /tmp on the same disk. CPU per write: the JVM's CPU time (user and kernel, so fsync's"
                + " kernel work too; servers, peers and writers together) over the whole run divided by the measured"
                + " rate times the run's length.", seconds(plan.warmUp()), seconds(plan.measure()),
                plan.firstWarmUp().toSeconds(), KEYS));
        StringBuilder forced = new StringBuilder("What each system forces to disk before it acknowledges a write:\n");
        durability.forEach((system, text) -> forced.append("\n- ").append(system.label).append(": ").append(text)
                .append('.'));
        report.note(forced.toString());
        for (String stall : stalls) {
            report.note("Stalled: " + stall + ".");
        }
        report.note(ratios);
        report.note(context);
        return report;
    }

    /** Neptune with 3 replicas against Ratis and against itself unreplicated, at {@code writers} writers. */
    static String ratios(List<Measurement> measurements, int writers) {
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "Committed writes/s at %d writers:%n%n",
                writers));
        md.append("| partitions | payload | Neptune 3 replicas | Ratis 3 peers | Neptune ÷ Ratis | Neptune unreplicated"
                + " | replicated ÷ unreplicated |\n| --- | --- | --- | --- | --- | --- | --- |\n");
        List<Measurement> neptune = measurements.stream()
                .filter(m -> m.system() == WriteSystem.NEPTUNE && m.result().callers() == writers).toList();
        for (Measurement n : neptune) {
            double ratis = throughput(measurements, WriteSystem.RATIS, n, writers);
            double alone = throughput(measurements, WriteSystem.NEPTUNE_UNREPLICATED, n, writers);
            double mine = n.result().throughput();
            md.append(String.format(Locale.ROOT, "| %d | %s | %.0f | %.0f | %.2f | %.0f | %.2f |%n", n.partitions(),
                    payloadLabel(n.payload()), mine, ratis, mine / ratis, alone, mine / alone));
        }
        return md.toString().stripTrailing();
    }

    static double throughput(List<Measurement> measurements, WriteSystem system, Measurement like,
            int writers) {
        return measurements.stream().filter(m -> m.system() == system && m.partitions() == like.partitions()
                        && m.payload() == like.payload() && m.result().callers() == writers)
                .mapToDouble(m -> m.result().throughput()).findFirst().orElse(Double.NaN);
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }
}
