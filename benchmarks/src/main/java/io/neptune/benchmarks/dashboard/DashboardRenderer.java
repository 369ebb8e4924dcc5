package io.neptune.benchmarks.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a Grafana dashboard's time-series panels from a real Prometheus: every panel query of the
 * dashboard JSON runs through Prometheus's {@code /api/v1/query_range} as Grafana would run it (the
 * template variables set to "All", {@code $__rate_interval} by Grafana's rule), and the panels are
 * laid out on one image by their {@code gridPos}. It is not Grafana's renderer (Grafana is not
 * packaged where this runs); the queries, the data and the layout are the dashboard's.
 */
final class DashboardRenderer {
    private static final int COLUMN_PIXELS = 75; // Grafana's grid: 24 columns
    private static final int ROW_PIXELS = 36;
    private static final int MAX_SERIES = 10; // per panel, the series with the largest peak
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-zA-Z_]+)\\s*}}");

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI prometheus;
    private final Duration scrapeInterval;

    DashboardRenderer(URI prometheus, Duration scrapeInterval) {
        this.prometheus = prometheus;
        this.scrapeInterval = scrapeInterval;
    }

    /** One line of a panel: its legend and its points (seconds since the start, value). */
    record Series(String legend, double[] seconds, double[] values) {
        double peak() {
            double peak = 0;
            for (double v : values) {
                peak = Double.isFinite(v) ? Math.max(peak, Math.abs(v)) : peak;
            }
            return peak;
        }
    }

    /**
     * Renders every panel of {@code dashboard} over {@code [start, end]} into a PNG at {@code out}.
     *
     * @return a line per panel saying how many series its queries returned
     */
    List<String> render(Path dashboard, Instant start, Instant end, Duration step, Path out)
            throws IOException, InterruptedException {
        JsonNode panels = json.readTree(dashboard.toFile()).path("panels");
        int rows = 0;
        for (JsonNode panel : panels) {
            JsonNode grid = panel.path("gridPos");
            rows = Math.max(rows, grid.path("y").asInt() + grid.path("h").asInt());
        }
        BufferedImage image = new BufferedImage(24 * COLUMN_PIXELS, rows * ROW_PIXELS, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(new Color(0xF4F5F5));
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        List<String> summary = new ArrayList<>();
        String rateInterval = rateInterval(step);
        for (JsonNode panel : panels) {
            JsonNode grid = panel.path("gridPos");
            int x = grid.path("x").asInt() * COLUMN_PIXELS;
            int y = grid.path("y").asInt() * ROW_PIXELS;
            int w = grid.path("w").asInt() * COLUMN_PIXELS;
            int h = grid.path("h").asInt() * ROW_PIXELS;
            String title = panel.path("title").asText();
            if (panel.path("type").asText().equals("row")) {
                g.setColor(new Color(0x22252B));
                g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
                g.drawString(title, x + 8, y + h - 10);
                continue;
            }
            List<Series> series = new ArrayList<>();
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText().replace("$node", ".*").replace("$service", ".*")
                        .replace("$__rate_interval", rateInterval);
                series.addAll(query(expr, target.path("legendFormat").asText(""), start, end, step));
            }
            summary.add(String.format(Locale.ROOT, "%-60s %3d series", title, series.size()));
            XYChart chart = chart(title, panel.path("fieldConfig").path("defaults").path("unit").asText(""), series,
                    w - 8, h - 8);
            BufferedImage tile = new BufferedImage(w - 8, h - 8, BufferedImage.TYPE_INT_RGB);
            Graphics2D tg = tile.createGraphics();
            chart.paint(tg, tile.getWidth(), tile.getHeight());
            tg.dispose();
            g.drawImage(tile, x + 4, y + 4, null);
        }
        g.dispose();
        Files.createDirectories(out.toAbsolutePath().getParent());
        ImageIO.write(image, "png", out.toFile());
        return summary;
    }

    /** Grafana's {@code $__rate_interval}: max(step + scrape interval, 4 × scrape interval). */
    private String rateInterval(Duration step) {
        Duration interval = step.plus(scrapeInterval);
        Duration fourScrapes = scrapeInterval.multipliedBy(4);
        return (interval.compareTo(fourScrapes) > 0 ? interval : fourScrapes).toSeconds() + "s";
    }

    private List<Series> query(String expr, String legendFormat, Instant start, Instant end, Duration step)
            throws IOException, InterruptedException {
        String query = "query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8) + "&start=" + start.getEpochSecond()
                + "&end=" + end.getEpochSecond() + "&step=" + step.toSeconds();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(prometheus.resolve("/api/v1/query_range?" + query))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = json.readTree(response.body());
        if (response.statusCode() != 200 || !body.path("status").asText().equals("success")) {
            throw new IOException("Prometheus refused the dashboard's query " + expr + ": HTTP " + response.statusCode()
                    + " " + body.path("error").asText(response.body()));
        }
        List<Series> series = new ArrayList<>();
        for (JsonNode result : body.path("data").path("result")) {
            JsonNode values = result.path("values");
            double[] seconds = new double[values.size()];
            double[] points = new double[values.size()];
            for (int i = 0; i < values.size(); i++) {
                seconds[i] = values.get(i).get(0).asDouble() - start.getEpochSecond();
                points[i] = parse(values.get(i).get(1).asText());
            }
            series.add(new Series(legend(legendFormat, result.path("metric")), seconds, points));
        }
        return series;
    }

    private static double parse(String value) {
        return switch (value) {
            case "NaN" -> Double.NaN;
            case "+Inf", "-Inf" -> Double.NaN; // a quantile over empty buckets: Grafana leaves a gap too
            default -> Double.parseDouble(value);
        };
    }

    /** Grafana's legend: {@code {{label}}} replaced by the series' label, or every label when no format is set. */
    private static String legend(String format, JsonNode labels) {
        if (format.isEmpty()) {
            StringBuilder all = new StringBuilder();
            for (Map.Entry<String, JsonNode> label : labels.properties()) {
                if (!label.getKey().equals("__name__") && !label.getKey().equals("job")
                        && !label.getKey().equals("instance")) {
                    all.append(all.length() == 0 ? "" : ", ").append(label.getKey()).append('=')
                            .append(label.getValue().asText());
                }
            }
            return all.length() == 0 ? "value" : all.toString();
        }
        Matcher m = LEGEND_LABEL.matcher(format);
        StringBuilder legend = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(legend, Matcher.quoteReplacement(labels.path(m.group(1)).asText("")));
        }
        m.appendTail(legend);
        return legend.toString();
    }

    /** Grafana's unit ids as words on the y axis. */
    private static String unitName(String unit) {
        return switch (unit) {
            case "reqps" -> "requests/s";
            case "ops" -> "per second";
            case "s" -> "seconds";
            case "bytes" -> "bytes";
            case "percentunit" -> "fraction of the machine";
            default -> "";
        };
    }

    private static XYChart chart(String title, String unit, List<Series> series, int width, int height) {
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle("s")
                .yAxisTitle(unitName(unit)).build();
        Styler styler = chart.getStyler();
        chart.getStyler().setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 9));
        chart.getStyler().setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 9));
        chart.getStyler().setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        chart.getStyler().setMarkerSize(0);
        chart.getStyler().setYAxisMin(0.0);
        styler.setChartBackgroundColor(Color.WHITE);
        List<Series> shown = new ArrayList<>(series);
        shown.sort((a, b) -> Double.compare(b.peak(), a.peak()));
        if (shown.isEmpty()) {
            chart.addSeries("no data", new double[] {0}, new double[] {0}).setMarker(SeriesMarkers.NONE);
            return chart;
        }
        List<String> used = new ArrayList<>();
        for (Series s : shown.subList(0, Math.min(MAX_SERIES, shown.size()))) {
            String name = s.legend();
            while (used.contains(name)) {
                name = name + " ";
            }
            used.add(name);
            XYSeries line = chart.addSeries(name, s.seconds(), s.values());
            line.setMarker(SeriesMarkers.NONE);
        }
        if (shown.size() > MAX_SERIES) {
            chart.setTitle(title + " (top " + MAX_SERIES + " of " + shown.size() + ")");
        }
        return chart;
    }
}
