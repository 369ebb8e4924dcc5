package io.neptune.benchmarks;

import io.neptune.benchmarks.LoadIndexExperiment.Measurement;
import io.neptune.benchmarks.LoadIndexExperiment.Plan;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * How {@link LoadIndexExperiment} reports: one row per case and delay with the node's inaccuracy,
 * the model's on the same requests and in steady state, and the bounds; a plot like Figure 3.1;
 * and, as notes, the method, each case's sampling and queue figures, and the run's context.
 *
 * <p>Thread-safety: stateless.
 */
final class LoadIndexReport {
    private LoadIndexReport() {}

    /** The bound column of a case: 2ρ/(1 − ρ²) for Poisson/Exp, "-" for the others (no closed form). */
    static String closedFormBound(Workload workload, double load) {
        return workload == Workload.POISSON_EXP ? format(LoadIndexInaccuracy.poissonExpBound(load)) : "-";
    }

    static Report report(Plan plan, List<Measurement> measurements, String context) {
        Report report = new Report(LoadIndexExperiment.REPORT, "Load index inaccuracy by delay (Figure 3.1)",
                "workload", "load_pct", "delay_x_service", "delay_ms", "node", "model_window", "model_steady",
                "limit_model", "bound_2rho");
        report.axes("delay (mean service times)", "mean |Q(t) - Q(t + delay)|", true);
        List<Double> delays = LoadIndexInaccuracy.DELAYS;
        for (Measurement m : measurements) {
            Workload workload = m.c().workload();
            String label = m.c().label();
            for (int d = 0; d < delays.size(); d++) {
                double delay = delays.get(d);
                report.row(workload.label(), Math.round(m.c().load() * 100), plain(delay),
                        delay * workload.meanServiceMillis(), m.node().inaccuracy().get(d),
                        m.window().inaccuracy().get(d), m.steady().inaccuracy().get(d),
                        m.steady().independentDraws(), closedFormBound(workload, m.c().load()));
                report.point(label + " node", delay, m.node().inaccuracy().get(d));
                report.point(label + " exact queue, steady", delay, m.steady().inaccuracy().get(d));
            }
            if (workload == Workload.POISSON_EXP) {
                double bound = LoadIndexInaccuracy.poissonExpBound(m.c().load());
                report.point(label + " bound 2ρ/(1-ρ²)", delays.get(0), bound);
                report.point(label + " bound 2ρ/(1-ρ²)", delays.get(delays.size() - 1), bound);
            }
        }
        report.legendOutside();
        report.note("What is measured (the dissertation's section 3.2.1): the load index inaccuracy for a delay Δt,"
                + " the mean |Q(t) − Q(t + Δt)| of one server's queue length Q (requests running and waiting), against"
                + " Δt in mean service times. 'node' is a real Neptune node's load index as a client's UDP poll reads"
                + " it: one node hosts one single-worker service per case (all six cases at once, each its own"
                + " queue and worker, the worker held for the request's service time by sleeping), fed by an"
                + " open-loop generator on a second node with the workload's gamma-distributed arrivals and service"
                + " times at the case's load; a sampler thread per case polls that service's load index every 1/"
                + LoadIndexExperiment.STEPS_PER_SERVICE + " of the mean service time for " + plan.window().toSeconds()
                + " s after " + plan.warmup().toSeconds() + " s of warm-up, and each grid point takes the latest"
                + " reading at or before it. 'model_window' is the same statistic of the exact single-server FIFO"
                + " queue fed the very same requests (the run's seed) on the same grid, without any overhead: where"
                + " 'node' differs from it, Neptune does; where both differ from 'model_steady' (the same queue over "
                + LoadIndexExperiment.STEADY_SERVICES + " mean service times), the window is too short. 'limit_model'"
                + " is the steady model's mean difference of two independent queue lengths, the limit for long delays"
                + " and the dissertation's upper bound for any workload; 'bound_2rho' is its closed form for"
                + " Poisson/Exp, 2ρ/(1 − ρ²) (equation 3.2.1).");
        report.note(cases(measurements));
        report.note(context + (plan.quick() ? " Quick mode: a " + plan.window().toSeconds() + " s window, in which"
                + " the long delays at 90% load have few independent pairs (compare 'model_window' with"
                + " 'model_steady')." : ""));
        return report;
    }

    /** Per case: what the sampler read and missed, the calls, and the mean queue length and utilization. */
    static String cases(List<Measurement> measurements) {
        StringBuilder md = new StringBuilder("Per case: load polls answered, grid points skipped (the sampler a step"
                + " late) and polls lost; calls and failed calls; the mean queue length and the busy fraction (samples"
                + " with a request at the server: the utilization) of the node, the model of the same window and the"
                + " steady model; the slowest poll.\n\n");
        md.append("| case | grid points | polls answered | skipped | lost | calls | failed | mean queue (node / window"
                + " / steady) | busy (node / window / steady) | slowest poll ms |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Measurement m : measurements) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %s / %s / %s | %s / %s / %s | %s"
                    + " |%n", m.c().label(), m.samples().grid().length, m.samples().readings(), m.samples().skipped(),
                    m.samples().lost(), m.calls().requests(), m.calls().failures(), format(m.node().meanQueue()),
                    format(m.window().meanQueue()), format(m.steady().meanQueue()), format(m.node().busy()),
                    format(m.window().busy()), format(m.steady().busy()), format(m.samples().maxRoundTripMillis())));
        }
        return md.toString().stripTrailing();
    }

    /** A delay as written in the table: 0.1, 1, 100. */
    static String plain(double delay) {
        return BigDecimal.valueOf(delay).stripTrailingZeros().toPlainString();
    }

    private static String format(double value) {
        return Report.format(value);
    }
}
