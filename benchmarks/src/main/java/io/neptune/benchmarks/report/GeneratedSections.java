package io.neptune.benchmarks.report;

/**
 * Finds and rewrites the generated parts of a Markdown file: the text between
 * {@code <!-- generated: NAME (./neptune bench report) -->} and the next {@code <!-- end generated -->},
 * each on a line of its own. Everything outside the markers is left as it is.
 */
final class GeneratedSections {
    static final String END = "<!-- end generated -->";

    private GeneratedSections() {}

    /** The line that opens the section {@code name}. */
    static String begin(String name) {
        return "<!-- generated: " + name + " (./neptune bench report) -->";
    }

    /** The text now between the markers of {@code name}; fails when the file lacks them. */
    static String content(String document, String name) {
        int[] span = span(document, name);
        return document.substring(span[0], span[1]);
    }

    /** {@code document} with the text between the markers of {@code name} replaced by {@code content}. */
    static String replace(String document, String name, String content) {
        int[] span = span(document, name);
        String body = content.endsWith("\n") ? content : content + "\n";
        return document.substring(0, span[0]) + body + document.substring(span[1]);
    }

    /** Where the section's text starts (after the opening line) and ends (at the closing marker). */
    private static int[] span(String document, String name) {
        String begin = begin(name) + "\n";
        int start = document.indexOf(begin);
        if (start < 0) {
            throw new IllegalStateException("no line " + begin(name) + " (expected: one that opens the section)");
        }
        if (document.indexOf(begin, start + 1) >= 0) {
            throw new IllegalStateException("two lines " + begin(name) + " (expected: one)");
        }
        int from = start + begin.length();
        int end = document.indexOf(END, from);
        if (end < 0 || (end > 0 && document.charAt(end - 1) != '\n')) {
            throw new IllegalStateException("no line " + END + " after " + begin(name));
        }
        return new int[] {from, end};
    }
}
