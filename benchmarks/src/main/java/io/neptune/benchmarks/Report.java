package io.neptune.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;

/**
 * The output of one experiment: a table written as CSV, Markdown and a JSON summary, and a line or
 * category plot as PNG, under {@code docs/benchmarks/<name>.*}, each stamped with the machine, the command and the
 * date. Thread-safety: not thread-safe; build it on one thread.
 */
public final class Report {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String name;
    private final String title;
    private final List<String> columns;
    private final List<List<Object>> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<String, List<double[]>> series = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> categories = new LinkedHashMap<>();
    private String xLabel = "x";
    private String yLabel = "y";
    private boolean logX;
    private boolean logY;
    private boolean legendOutside;

    /** Creates a report {@code name} (the file stem) with a title and the table's columns. */
    public Report(String name, String title, String... columns) {
        this.name = name;
        this.title = title;
        this.columns = List.of(columns);
    }

    /**
     * Adds a table row; values are formatted with {@link String#valueOf} (doubles to 3 significant places
     * in the table, 6 in the CSV and JSON).
     */
    public Report row(Object... values) {
        if (values.length != columns.size()) {
            throw new IllegalArgumentException("row: " + values.length + " values (expected: " + columns.size() + ")");
        }
        rows.add(List.of(values));
        return this;
    }

    /** Adds a sentence under the table (what was emulated, why figures differ). */
    public Report note(String note) {
        notes.add(note);
        return this;
    }

    /** Adds a point to the plot line {@code line}. */
    public Report point(String line, double x, double y) {
        series.computeIfAbsent(line, l -> new ArrayList<>()).add(new double[] {x, y});
        return this;
    }

    /**
     * Adds the value of {@code line} in {@code category}: a report with such values plots them by
     * category (in the order first seen) instead of on an x axis, as grouped bars, or as grouped
     * markers when the y axis is logarithmic (XChart draws no bars on one). A line without a value
     * in a category leaves a gap.
     */
    public Report categoryPoint(String line, String category, double value) {
        categories.computeIfAbsent(line, l -> new LinkedHashMap<>()).put(category, value);
        return this;
    }

    /** Makes the plot's y axis logarithmic. */
    public Report logarithmicY() {
        this.logY = true;
        return this;
    }

    /** Sets the plot's axis labels; {@code logX} for a logarithmic x axis. */
    public Report axes(String x, String y, boolean logarithmicX) {
        this.xLabel = x;
        this.yLabel = y;
        this.logX = logarithmicX;
        return this;
    }

    /** Puts the plot's legend right of the plot instead of inside its top-left corner. */
    public Report legendOutside() {
        this.legendOutside = true;
        return this;
    }

    /** A CSV cell (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a line break. */
    static String csvCell(String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
            return value;
        }
        return '"' + value.replace("\"", "\"\"") + '"';
    }

    /**
     * Writes {@code docs/benchmarks/<name>.csv}, {@code .md}, {@code .json} and, when there are points,
     * {@code .png}. The JSON summary holds the run (date, machine, command) and the table's cells as
     * the CSV has them, for {@code ./neptune bench report} ({@code io.neptune.benchmarks.report}).
     * A {@code --quick} run does not replace the report of a full run: it writes to
     * {@code benchmarks/target/quick-reports/} instead, and says so.
     */
    public void write(Path root, String command) {
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_INSTANT);
        try {
            Path directory = Files.createDirectories(directoryFor(root, command));
            StringBuilder csv = new StringBuilder(String.join(",", columns.stream().map(Report::csvCell).toList()))
                    .append('\n');
            for (List<Object> row : rows) {
                csv.append(String.join(",", row.stream().map(v -> csvCell(data(v))).toList())).append('\n');
            }
            Files.writeString(directory.resolve(name + ".csv"), csv);
            boolean plot = !series.isEmpty() || !categories.isEmpty();
            if (plot) {
                BitmapEncoder.saveBitmap(chart(), directory.resolve(name + ".png").toString(), BitmapEncoder.BitmapFormat.PNG);
            }
            StringBuilder md = new StringBuilder("# ").append(title).append("\n\n");
            md.append("- Date: ").append(date).append('\n');
            md.append("- Machine: ").append(machine()).append('\n');
            md.append("- Command: `").append(command).append("`\n\n");
            md.append("| ").append(String.join(" | ", columns)).append(" |\n");
            md.append("|").append(" --- |".repeat(columns.size())).append('\n');
            for (List<Object> row : rows) {
                md.append("| ").append(String.join(" | ", row.stream().map(Report::format).toList())).append(" |\n");
            }
            if (plot) {
                md.append("\n![").append(title).append("](").append(name).append(".png)\n");
            }
            for (String note : notes) {
                md.append('\n').append(note).append('\n');
            }
            Files.writeString(directory.resolve(name + ".md"), md);
            Files.writeString(directory.resolve(name + ".json"), summary(date, command));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report " + name, e);
        }
    }

    /**
     * {@code docs/benchmarks}, unless {@code command} is a quick run and the report there of this
     * name is a full run's: the committed reports keep the better data, and a quick run checks the
     * bench, so its report goes to {@code benchmarks/target/quick-reports}.
     */
    private Path directoryFor(Path root, String command) throws IOException {
        Path committed = root.resolve("docs").resolve("benchmarks");
        Path markdown = committed.resolve(name + ".md");
        if (!isQuick(command) || !Files.exists(markdown)) {
            return committed;
        }
        String committedCommand = Files.readAllLines(markdown).stream().filter(line -> line.startsWith("- Command: "))
                .findFirst().orElse("");
        if (isQuick(committedCommand)) {
            return committed;
        }
        Path quick = root.resolve("benchmarks").resolve("target").resolve("quick-reports");
        System.out.printf("report %s: kept the full run's %s; this --quick run's report is in %s%n", name,
                root.relativize(markdown), root.relativize(quick));
        return quick;
    }

    private static boolean isQuick(String command) {
        return command.contains("--quick");
    }

    /** The JSON summary: name, title, date, machine, command, columns, and rows of formatted cells. */
    private String summary(String date, String command) throws JsonProcessingException {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("name", name);
        summary.put("title", title);
        summary.put("date", date);
        summary.put("machine", machine());
        summary.put("command", command);
        summary.put("columns", columns);
        summary.put("rows", rows.stream().map(row -> row.stream().map(Report::data).toList()).toList());
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(summary) + "\n";
    }

    private Chart<?, ?> chart() {
        if (!categories.isEmpty()) {
            CategoryChart chart = new CategoryChartBuilder().width(900).height(540).title(title).xAxisTitle(xLabel)
                    .yAxisTitle(yLabel).build();
            style(chart.getStyler());
            chart.getStyler().setXAxisLabelRotation(30);
            chart.getStyler().setDefaultSeriesRenderStyle(logY ? CategorySeriesRenderStyle.Scatter
                    : CategorySeriesRenderStyle.Bar);
            List<String> xs = categories.values().stream().flatMap(c -> c.keySet().stream()).distinct().toList();
            categories.forEach((line, values) -> chart.addSeries(line, xs, xs.stream().map(values::get).toList()));
            return chart;
        }
        XYChart chart = new XYChartBuilder().width(900).height(540).title(title).xAxisTitle(xLabel)
                .yAxisTitle(yLabel).build();
        style(chart.getStyler());
        chart.getStyler().setXAxisLogarithmic(logX);
        series.forEach((line, points) -> chart.addSeries(line, points.stream().mapToDouble(p -> p[0]).toArray(),
                points.stream().mapToDouble(p -> p[1]).toArray()));
        return chart;
    }

    private void style(AxesChartStyler styler) {
        styler.setLegendPosition(legendOutside ? Styler.LegendPosition.OutsideE : Styler.LegendPosition.InsideNW);
        styler.setYAxisLogarithmic(logY);
    }

    /**
     * A cell as the data files (CSV, JSON) keep it: a double with 6 significant digits, no trailing zeros.
     * More than the table shows, so that what {@code ./neptune bench report} computes from them (a ratio of
     * two cells) is what the run computed.
     */
    static String data(Object value) {
        if (value instanceof Double d && Double.isFinite(d)) {
            return new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros().toPlainString();
        }
        return format(value);
    }

    /** A cell as the table writes it: a double with 3 significant digits (none after the point from 100 up). */
    static String format(Object value) {
        if (value instanceof Double d) {
            return Math.abs(d) >= 100 ? String.format(Locale.ROOT, "%.0f", d) : String.format(Locale.ROOT, "%.3g", d);
        }
        return String.valueOf(value);
    }

    /** The working directory, which must be the repository root (the reports go to its docs/benchmarks). */
    static Path repositoryRoot() {
        Path root = Path.of("").toAbsolutePath();
        if (!Files.isDirectory(root.resolve("docs"))) {
            throw new IllegalStateException("run from the repository root (no docs/ in " + root + ")");
        }
        return root;
    }

    /** The 1, 5 and 15 minute load averages, or "unknown" off Linux. */
    public static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields[0] + ", " + fields[1] + ", " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Cores, CPU model and JVM of this machine, for the report header. */
    static String machine() {
        String cpu = "unknown CPU";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: keep the placeholder
        }
        return Runtime.getRuntime().availableProcessors() + " cores, " + cpu + ", Java "
                + System.getProperty("java.version");
    }
}
