package io.neptune.benchmarks;

import io.neptune.benchmarks.FailureTimelineExperiment.Event;
import io.neptune.benchmarks.FailureTimelineExperiment.Outcome;
import io.neptune.benchmarks.FailureTimelineExperiment.Plan;
import io.neptune.benchmarks.PerSecondTimeline.Second;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The report of a {@link FailureTimelineExperiment}: one row per second (successes, errors,
 * timeouts, latency, what happened), the plot of successes and errors plus timeouts per second with
 * the kill and the restarts as vertical lines, and a summary per phase (before the failure, three,
 * two and one node down, all back).
 *
 * <p>Thread-safety: a static factory, used from one thread.
 */
final class FailureTimelineReport {
    private FailureTimelineReport() {}

    /**
     * One phase of the timeline.
     *
     * @param name what the phase is
     * @param from its first second
     * @param to the second after its last
     */
    record Phase(String name, int from, int to) {}

    /** Builds the report of {@code outcome}; {@code context} (load average, run time) goes into the notes. */
    static Report of(Plan plan, Outcome outcome, String context) {
        Report report = new Report("failure-timeline", "Discussion group during three node failures and recoveries"
                + " (Figure 5.4)", "second", "ok/s", "errors/s", "timeouts/s", "p50 ms", "p99 ms", "events")
                .axes("time (s)", "requests per second", false).legendOutside();
        List<Second> seconds = outcome.timeline();
        double top = seconds.stream().mapToLong(Second::ok).max().orElse(1) * 1.05;
        for (Second s : seconds) {
            String happened = outcome.events().stream().filter(e -> (int) Math.floor(e.second()) == s.second())
                    .map(e -> String.format(Locale.ROOT, "%.2f s %s", e.second(), e.what()))
                    .collect(Collectors.joining("; "));
            report.row(s.second(), s.ok(), s.errors(), s.timeouts(), millis(s.p50Millis()), millis(s.p99Millis()),
                    happened);
            report.point("successful requests/s", s.second(), s.ok());
            report.point("errors + timeouts /s", s.second(), s.errors() + s.timeouts());
        }
        for (Event e : outcome.events()) {
            if (e.marker()) {
                String line = String.format(Locale.ROOT, "%.1f s: %s", e.second(), e.what());
                report.point(line, e.second(), 0).point(line, e.second(), top);
            }
        }
        report.note(summary(plan, outcome));
        report.note("Replica check after the run: " + outcome.check() + ".");
        report.note(String.format(Locale.ROOT, "Setup: %d service node processes (%s), each hosting the discussion"
                + " group (EmulatedDiscussion, level 2, %d partitions, %d replicas, priorities so that partition p's"
                + " first replica is on node p mod 8) as one emulated two-worker machine: a request holds a worker"
                + " for %.1f ms (ViewHeaders) or %.1f ms (AddMsg, at every replica), asleep, with the real H2 work"
                + " inside that time: %dx the replication experiments' times, so that the load fits this host's CPU."
                + " One in-process driver node sends open-loop Poisson arrivals at %.0f req/s"
                + " (%.0f%% of the emulated capacity of %.0f req/s), %.0f%% AddMsg writes, over %d topics; each"
                + " simulated user (NeptuneHandle) sends about one request per second. The %d processes were"
                + " serving every partition %.1f s after launch; a warm-up of %d s at half the rate before t = 0 is"
                + " not binned.", FailureTimelineExperiment.NODES, String.join(" ",
                        FailureTimelineExperiment.NODE_JVM_OPTIONS.subList(0, 3)), EmulatedDiscussion.PARTITIONS,
                FailureTimelineExperiment.DEGREE, FailureTimelineExperiment.TIMES.read().toNanos() / 1e6,
                FailureTimelineExperiment.TIMES.write().toNanos() / 1e6, FailureTimelineExperiment.SLOWDOWN,
                plan.rate(), 100 * plan.rate() / FailureTimelineExperiment.modelCapacity(),
                FailureTimelineExperiment.modelCapacity(), 100 * FailureTimelineExperiment.WRITES,
                400 * FailureTimelineExperiment.NODES, FailureTimelineExperiment.NODES, outcome.startUpSeconds(),
                plan.warmUp().toSeconds()));
        report.note("Failures are real: the node processes are killed with SIGKILL, and a recovery restarts the"
                + " process on its data directory, so it goes through Neptune's recovery (REDO log replay, catch-up"
                + " from the primary, then the handover back to the replica with the highest priority). A call counts"
                + " as ok if it succeeds within 2 s of its scheduled send time (the dissertation's deadline); a"
                + " timeout is the client's deadline passing (DeadlineExceededException); anything else is an error."
                + " Each call is binned by the second in which it ended (a timeout therefore shows 2 s after its"
                + " send); calls ending after the timeline are not binned. Latency percentiles (HdrHistogram) are of"
                + " the successful calls, from the scheduled send time (no coordinated omission). 'events' lists"
                + " the kill, each restart, when its process printed READY, when the driver saw all its replicas"
                + " serving, and when it was primary again of the partitions it has the highest priority for.");
        report.note(context);
        return report;
    }

    private static Object millis(double value) {
        return Double.isNaN(value) ? "-" : value;
    }

    /** The phases of {@code plan}: before, three, two and one down, all back. */
    static List<Phase> phases(Plan plan) {
        List<Phase> phases = new ArrayList<>();
        int failAt = (int) plan.failAt().toSeconds();
        phases.add(new Phase("before the failure", 0, failAt));
        int from = failAt;
        String[] down = {"3 nodes down", "2 nodes down", "1 node down"};
        for (int i = 0; i < plan.recoverAt().size(); i++) {
            int to = (int) plan.recoverAt().get(i).toSeconds();
            phases.add(new Phase(down[i], from, to));
            from = to;
        }
        phases.add(new Phase("all restarted", from, (int) plan.length().toSeconds()));
        return phases;
    }

    /** A Markdown table: per phase, mean successes per second, errors and timeouts, worst p99. */
    static String summary(Plan plan, Outcome outcome) {
        StringBuilder table = new StringBuilder("| phase | seconds | ok/s (mean) | ok/s (min) | errors | timeouts"
                + " | worst p99 ms |\n| --- | --- | --- | --- | --- | --- | --- |\n");
        for (Phase phase : phases(plan)) {
            List<Second> in = outcome.timeline().subList(phase.from(), Math.min(phase.to(), outcome.timeline().size()));
            table.append(String.format(Locale.ROOT, "| %s | %d-%d | %.0f | %d | %d | %d | %.0f |%n", phase.name(),
                    phase.from(), phase.to(), in.stream().mapToLong(Second::ok).average().orElse(0),
                    in.stream().mapToLong(Second::ok).min().orElse(0), in.stream().mapToLong(Second::errors).sum(),
                    in.stream().mapToLong(Second::timeouts).sum(),
                    in.stream().mapToDouble(Second::p99Millis).filter(d -> !Double.isNaN(d)).max().orElse(0)));
        }
        return table.toString().stripTrailing();
    }
}
