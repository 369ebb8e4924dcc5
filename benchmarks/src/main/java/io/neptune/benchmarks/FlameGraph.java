package io.neptune.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A flame graph as a self-contained SVG, drawn from stacks in the collapsed format that
 * async-profiler and Brendan Gregg's {@code stackcollapse} scripts write: one line per distinct
 * stack, frames root first separated by {@code ;}, then a space and the stack's weight (samples,
 * nanoseconds or bytes). The root is at the bottom; a frame's width is its weight including
 * everything it called; children are sorted by name, so a graph shows shares, not time order.
 * Frames narrower than {@value #MIN_WIDTH} px are left out; each frame's tooltip names it with its
 * weight and share.
 *
 * <p>Colours: Neptune green, Netty aqua, Jackson yellow, other Java orange-red, native and
 * kernel frames (async-profiler's {@code _[k]} suffix) grey, allocated classes (alloc profiles'
 * leaves, {@code _[i]} and {@code _[k]} after a type) blue.
 *
 * <p>Thread-safety: not thread-safe; build it on one thread.
 */
public final class FlameGraph {
    private static final double WIDTH = 1200;
    private static final double PAD = 10;
    private static final double FRAME_HEIGHT = 16;
    private static final double TOP = 54;
    private static final double MIN_WIDTH = 0.3;
    private static final double CHAR_WIDTH = 6.6;

    private final Node root = new Node("all");

    /** A frame and the frames it called, with the weight of the stacks through it. */
    private static final class Node {
        final String name;
        final Map<String, Node> children = new TreeMap<>();
        long weight;

        Node(String name) {
            this.name = name;
        }
    }

    /** A flame graph of {@code collapsed} (lines {@code frame;frame;... weight}; blank lines ignored). */
    public static FlameGraph parse(String collapsed) {
        FlameGraph graph = new FlameGraph();
        for (String line : collapsed.split("\n")) {
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                throw new IllegalArgumentException("collapsed stack: '" + line + "' (expected: frames, a space, a weight)");
            }
            graph.add(line.substring(0, space).split(";"), Long.parseLong(line.substring(space + 1)));
        }
        return graph;
    }

    /** Adds one stack (frames root first) of {@code weight}. */
    public void add(String[] frames, long weight) {
        Node node = root;
        node.weight += weight;
        for (String frame : frames) {
            node = node.children.computeIfAbsent(frame, Node::new);
            node.weight += weight;
        }
    }

    /** The weight of all stacks. */
    public long total() {
        return root.weight;
    }

    /**
     * The graph as SVG.
     *
     * @param title the heading
     * @param subtitle a line under it (what was profiled, the command)
     * @param unit what a weight counts, for the tooltips ({@code "samples"}, {@code "bytes"})
     */
    public String svg(String title, String subtitle, String unit) {
        int depth = depth(root, 0);
        double height = TOP + (depth + 1) * FRAME_HEIGHT + PAD + 20;
        StringBuilder svg = new StringBuilder(1 << 20);
        svg.append(String.format(Locale.ROOT, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>%n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
                + " font-family=\"Verdana, sans-serif\" font-size=\"11\">%n", WIDTH, height, WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>%n"
                + "<text x=\"%.0f\" y=\"22\" font-size=\"16\" text-anchor=\"middle\">%s</text>%n"
                + "<text x=\"%.0f\" y=\"40\" fill=\"#555\" text-anchor=\"middle\">%s</text>%n", WIDTH / 2, escape(title),
                WIDTH / 2, escape(subtitle)));
        double bottom = height - PAD - 20;
        frame(svg, root, PAD, bottom, (WIDTH - 2 * PAD) / Math.max(1, root.weight), unit);
        svg.append(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555\">Hover a frame for its"
                + " name and share. Width: share of all %s (%,d); children sorted by name, not time.</text>%n",
                PAD, height - 8, unit, root.weight));
        return svg.append("</svg>\n").toString();
    }

    private static int depth(Node node, int level) {
        int deepest = level;
        for (Node child : node.children.values()) {
            deepest = Math.max(deepest, depth(child, level + 1));
        }
        return deepest;
    }

    private void frame(StringBuilder svg, Node node, double x, double y, double scale, String unit) {
        double width = node.weight * scale;
        if (width < MIN_WIDTH) {
            return;
        }
        double share = 100.0 * node.weight / Math.max(1, root.weight);
        String label = label(node.name);
        svg.append(String.format(Locale.ROOT, "<g><title>%s (%,d %s, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\""
                + " width=\"%.1f\" height=\"%.1f\" rx=\"2\" fill=\"%s\"/>", escape(node.name), node.weight, unit,
                share, x, y - FRAME_HEIGHT, width, FRAME_HEIGHT - 1, colour(node.name)));
        int chars = (int) ((width - 6) / CHAR_WIDTH);
        if (chars >= 3) {
            String text = label.length() <= chars ? label : label.substring(0, chars - 2) + "..";
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x + 3, y - 4,
                    escape(text)));
        }
        svg.append("</g>\n");
        double childX = x;
        for (Node child : node.children.values()) {
            frame(svg, child, childX, y - FRAME_HEIGHT, scale, unit);
            childX += child.weight * scale;
        }
    }

    /**
     * A frame's short name: {@code Class.method} for a Java method (async-profiler writes
     * {@code package/Class.method}), the simple name for an allocated type ({@code java.lang.String}),
     * as is for native and kernel frames; without async-profiler's type suffix.
     */
    static String label(String frame) {
        String name = stripSuffix(frame);
        if (name.contains("/")) {
            return name.substring(name.lastIndexOf('/') + 1);
        }
        if (isType(frame)) {
            return name.substring(packageEnd(name));
        }
        return name;
    }

    /** Where the simple name of type {@code name} starts: after the last dot followed by an upper-case letter. */
    private static int packageEnd(String name) {
        for (int i = name.length() - 2; i >= 0; i--) {
            if (name.charAt(i) == '.' && Character.isUpperCase(name.charAt(i + 1))) {
                return i + 1;
            }
        }
        return 0;
    }

    private static String stripSuffix(String frame) {
        int suffix = frame.lastIndexOf("_[");
        return suffix > 0 && frame.endsWith("]") ? frame.substring(0, suffix) : frame;
    }

    /** The fill of a frame, by its kind; a hash of the name varies the shade so neighbours differ. */
    static String colour(String frame) {
        String name = stripSuffix(frame).replace('.', '/');
        int vary = Math.floorMod(name.hashCode(), 40);
        boolean kernel = frame.endsWith("_[k]") && !isType(frame);
        if (isType(frame)) {
            return rgb(90 + vary, 140 + vary, 230);
        }
        if (kernel || !name.contains("/") && !frame.startsWith("[")) {
            return rgb(170 + vary, 170 + vary, 170 + vary);
        }
        if (frame.startsWith("[")) { // a thread, with the threads option
            return rgb(200, 200, 120 + vary);
        }
        if (name.startsWith("io/neptune/")) {
            return rgb(80 + vary, 190 + vary / 2, 80);
        }
        if (name.startsWith("io/netty/")) {
            return rgb(70, 180 + vary, 190 + vary / 2);
        }
        if (name.startsWith("com/fasterxml/")) {
            return rgb(215 + vary, 195 + vary / 2, 60);
        }
        return rgb(225, 110 + vary * 2, 60 + vary);
    }

    /** Whether {@code frame} is an allocated type (the leaf of an allocation profile). */
    private static boolean isType(String frame) {
        String name = stripSuffix(frame);
        return (frame.endsWith("_[i]") || frame.endsWith("_[k]")) && !name.contains("/")
                && (name.endsWith("[]") || packageEnd(name) > 0);
    }

    private static String rgb(int r, int g, int b) {
        return String.format(Locale.ROOT, "#%02x%02x%02x", Math.min(255, r), Math.min(255, g), Math.min(255, b));
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /**
     * The weights of the stacks summed by a key each stack maps to, heaviest first; stacks whose key
     * is null are left out.
     */
    public static Map<String, Long> sumBy(String collapsed, java.util.function.Function<String[], String> key) {
        Map<String, Long> sums = new LinkedHashMap<>();
        for (String line : collapsed.split("\n")) {
            line = line.strip();
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String k = key.apply(line.substring(0, space).split(";"));
            if (k != null) {
                sums.merge(k, Long.parseLong(line.substring(space + 1)), Long::sum);
            }
        }
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(sums.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        Map<String, Long> result = new LinkedHashMap<>();
        sorted.forEach(e -> result.put(e.getKey(), e.getValue()));
        return result;
    }
}
