package io.neptune.benchmarks.nemesis;

import io.neptune.benchmarks.nemesis.NemesisRun.Outcome;
import io.neptune.benchmarks.nemesis.NemesisRun.Settings;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a run's {@code report.md} (seed, settings, faults with times, operation counts, replica
 * agreement, the checkers' verdicts) and {@code timeline.png} (completions per second, ok and
 * fail + info, with a shaded band per fault).
 *
 * <p>Thread-safety: static methods, no shared state.
 */
final class NemesisReport {
    private NemesisReport() {}

    /** Writes both files into the run directory. */
    static void write(Outcome outcome, String command, List<String> verdicts, List<WriteRecovery.Gap> gaps)
            throws IOException {
        Files.writeString(outcome.directory().resolve("report.md"), markdown(outcome, command, verdicts, gaps));
        timeline(outcome, outcome.directory().resolve("timeline.png"));
    }

    static String markdown(Outcome outcome, String command, List<String> verdicts, List<WriteRecovery.Gap> gaps) {
        Settings s = outcome.settings();
        HistorySummary h = outcome.history();
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "# Nemesis run, seed %d%n%n", s.seed()));
        md.append("Command: `").append(command).append("`  \n");
        md.append(String.format(Locale.ROOT, "Mode `%s`, level %d, %d nodes, %d replicas per partition, %d partitions,"
                + " %d client processes on %d active keys (mean think time %d ms, call timeout %d ms); faults for %d s,"
                + " then %d s healed; %s form.  %n", s.mode().configName(), s.level(), s.nodes(), s.degree(),
                ListAppendService.PARTITIONS, s.processes(), s.keys(), s.think().toMillis(), s.callTimeout().toMillis(),
                s.duration().toSeconds(), s.recovery().toSeconds(), s.quick() ? "quick" : "full"));
        md.append(String.format(Locale.ROOT, "Start-up %.1f s, whole run %.1f s; load average %s at the end.%n%n",
                outcome.startUpSeconds(), outcome.wallSeconds(), loadAverage()));

        md.append("## Faults\n\nWrites again: time from the fault's start until every partition that was taking"
                + " writes completed a write invoked after it.\n\n| # | kind | target | start s | end s | writes again"
                + " | detail |\n| --- | --- | --- | --- | --- | --- | --- |\n");
        int n = 1;
        for (Nemesis.Applied f : outcome.faults()) {
            WriteRecovery.Gap gap = n <= gaps.size() ? gaps.get(n - 1) : null;
            String again = gap == null ? "?" : gap.nanos().isPresent()
                    ? String.format(Locale.ROOT, "%.2f s", gap.nanos().getAsLong() / 1e9) : "not resumed";
            md.append(String.format(Locale.ROOT, "| %d | %s | %s | %.2f | %.2f | %s | %s |%n", n++, f.kind(),
                    String.join(" ", f.target()), f.start() / 1e9, f.end() / 1e9, again,
                    f.detail().replace("|", "/")));
        }
        md.append("\nPlanned from the seed: ").append(outcome.schedule().faults()).append(".\n\n");
        if (!outcome.schedule().placements().isEmpty()) {
            md.append("Placement changes planned from the seed (concurrent with the faults): ")
                    .append(outcome.schedule().placements()).append("; ")
                    .append(Nemesis.PlacementTally.of(outcome.faults()))
                    .append(" (a refused or timed-out call is no failure of the run; a lost write is).\n\n");
        }

        md.append("## Operations\n\n| | ok | fail | info (unknown) |\n| --- | --- | --- | --- |\n");
        for (String f : List.of("append", "read")) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d |%n", f, h.count(f, "ok"), h.count(f, "fail"),
                    h.count(f, "info")));
        }
        md.append(String.format(Locale.ROOT, "%n%d history lines, %d keys. ![timeline](timeline.png)%n%n", h.lines(),
                h.keys().size()));

        md.append("## Final state\n\n");
        md.append(outcome.unsettled() == null ? "Every partition's replicas agreed (one primary, equal version and"
                + " digest) after healing.\n\n" : "Replicas did NOT agree before the settle timeout: "
                + outcome.unsettled() + "\n\n");
        md.append("| partition | replicas (node: version, digest) |\n| --- | --- |\n");
        for (Map.Entry<Integer, List<Map<String, Object>>> e : outcome.state().replicasByPartition().entrySet()) {
            md.append("| ").append(e.getKey()).append(" | ");
            e.getValue().forEach(r -> md.append(r.get("node")).append(": ").append(r.get("version")).append(", `")
                    .append(shortDigest(String.valueOf(r.get("digest")))).append("`; "));
            md.append("|\n");
        }
        md.append(String.format(Locale.ROOT, "%n%d lists read from the replicas' files after the nodes stopped, on the"
                + " final placement %s.%n%n", outcome.state().reads().size(), outcome.state().placement()));

        // the checkers' section is Markdown already (CheckReport.markdown), with its own heading
        verdicts.forEach(v -> md.append(v).append('\n'));
        if (!outcome.problems().isEmpty()) {
            md.append("\n## Problems during the run\n\n");
            outcome.problems().forEach(p -> md.append("- ").append(p).append('\n'));
        }
        md.append(s.quick() ? "\nFiles: `history.jsonl`, `final-state.json`, `faults.txt`, `logs/`."
                : "\nFiles: `history.jsonl.gz`, `final-state.json`, `faults.txt`, `logs/*.gz` (gzipped after the run).");
        md.append(" Reproduce with the command above (same seed, same schedule); see docs/RELIABILITY.md.\n");
        return md.toString();
    }

    /** Completions per second with the faults as shaded bands. */
    static void timeline(Outcome outcome, Path png) throws IOException {
        List<long[]> seconds = outcome.history().perSecond();
        XYChart chart = new XYChartBuilder().width(1200).height(500)
                .title(String.format(Locale.ROOT, "Nemesis run, seed %d, %s, level %d", outcome.settings().seed(),
                        outcome.settings().mode().configName(), outcome.settings().level()))
                .xAxisTitle("time since the workload started (s)").yAxisTitle("completions per second").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridLinesVisible(true);
        double top = 1;
        double[] x = new double[Math.max(1, seconds.size())];
        double[] ok = new double[x.length];
        double[] failed = new double[x.length];
        for (int i = 0; i < seconds.size(); i++) {
            x[i] = i + 0.5;
            ok[i] = seconds.get(i)[0];
            failed[i] = seconds.get(i)[1] + seconds.get(i)[2];
            top = Math.max(top, Math.max(ok[i], failed[i]));
        }
        top *= 1.1;
        Set<String> shown = new HashSet<>();
        int n = 0;
        for (Nemesis.Applied f : outcome.faults()) {
            double start = f.start() / 1e9;
            double end = Math.max(f.end() / 1e9, start + 0.2);
            XYSeries band = chart.addSeries("fault " + (++n), new double[] {start, start, end, end},
                    new double[] {0, top, top, 0});
            band.setXYSeriesRenderStyle(XYSeriesRenderStyle.PolygonArea);
            band.setFillColor(bandColor(f.kind()));
            band.setLineColor(new Color(0, 0, 0, 0));
            band.setMarker(SeriesMarkers.NONE);
            band.setLabel(category(f.kind()));
            band.setShowInLegend(shown.add(category(f.kind())));
            chart.addAnnotation(new AnnotationText(f.kind(), (start + end) / 2, top * (0.97 - 0.04 * (n % 3)), false));
        }
        XYSeries okSeries = chart.addSeries("ok / s", x, ok);
        okSeries.setXYSeriesRenderStyle(XYSeriesRenderStyle.Line);
        okSeries.setLineColor(new Color(0x1f, 0x77, 0xb4)).setLineStyle(new BasicStroke(1.5f));
        okSeries.setMarker(SeriesMarkers.NONE);
        XYSeries failSeries = chart.addSeries("fail + info / s", x, failed);
        failSeries.setXYSeriesRenderStyle(XYSeriesRenderStyle.Line);
        failSeries.setLineColor(new Color(0xd6, 0x27, 0x28)).setLineStyle(new BasicStroke(1.5f));
        failSeries.setMarker(SeriesMarkers.NONE);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** The legend entry of a fault kind: one colour per family. */
    private static String category(String kind) {
        if (kind.startsWith("partition") || kind.startsWith("isolate")) {
            return "network partition";
        }
        if (kind.startsWith("pause")) {
            return "process paused";
        }
        if (kind.startsWith("slow")) {
            return "slow network";
        }
        return "killed / crashed";
    }

    private static Color bandColor(String kind) {
        return switch (category(kind)) {
            case "network partition" -> new Color(255, 165, 0, 60);
            case "process paused" -> new Color(128, 0, 128, 50);
            case "slow network" -> new Color(0, 128, 128, 50);
            default -> new Color(128, 128, 128, 70);
        };
    }

    private static String shortDigest(String digest) {
        int colon = digest.indexOf(':');
        return colon >= 0 && digest.length() > colon + 9 ? digest.substring(0, colon + 9) + "…" : digest;
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + ", " + fields[1] + ", " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
