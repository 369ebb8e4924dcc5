package io.neptune.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Checks the links of Markdown files the way GitHub renders them: a relative link or image names a
 * file or directory inside the repository, an anchor names a heading (under GitHub's slug rules) or
 * an explicit {@code <a id>}/{@code <a name>} of the target, a reference-style link has a definition,
 * and an external link is a well-formed URL (it is not fetched). Fenced and indented code blocks,
 * inline code and HTML comments are skipped.
 *
 * <p>A small hand-written reader, not a full CommonMark parser: it knows the constructs these docs
 * use. Thread-safety: not thread-safe; one instance per check.
 */
final class MarkdownLinks {
    /** One link that does not resolve. */
    record Broken(String file, int line, String target, String reason) {
        @Override
        public String toString() {
            return file + ":" + line + " -> " + target + " (" + reason + ")";
        }
    }

    private static final Pattern FENCE = Pattern.compile("^(\\s*)(`{3,}|~{3,})(.*)$");
    private static final Pattern LIST_ITEM = Pattern.compile("^(\\s*)([-*+]|\\d{1,9}[.)])( +|$)");
    private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}(#{1,6})(?:\\s+(.*?))?(?:\\s+#+)?\\s*$");
    private static final Pattern SETEXT_UNDERLINE = Pattern.compile("^ {0,3}(=+|-+)\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("(`+)(.+?)(?<!`)\\1(?!`)");
    private static final Pattern ESCAPE = Pattern.compile("\\\\[\\\\`*_{}\\[\\]()#+\\-.!<>|]");
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[([^\\]]+)\\]:\\s*(\\S*)");
    private static final Pattern FULL_REFERENCE = Pattern.compile("\\]\\[([^\\]]*)\\]");
    private static final Pattern AUTOLINK = Pattern.compile("(?<!\\()<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^<>\\s]*)>");
    private static final Pattern HTML_LINK = Pattern.compile(
            "<(?:a|img)\\s[^>]*?(?:href|src)\\s*=\\s*[\"']([^\"']*)[\"']", Pattern.CASE_INSENSITIVE);
    private static final Pattern HTML_ANCHOR = Pattern.compile(
            "<a\\s[^>]*?(?:id|name)\\s*=\\s*[\"']([^\"']+)[\"']", Pattern.CASE_INSENSITIVE);
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Pattern LINE_ANCHOR = Pattern.compile("L\\d+(-L\\d+)?");
    private static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", "node_modules");

    private final Path root;
    private final Map<Path, Document> documents = new HashMap<>();

    private MarkdownLinks(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** A checker for the repository whose top directory is {@code root}. */
    static MarkdownLinks in(Path root) {
        return new MarkdownLinks(root);
    }

    /** Every {@code *.md} file under the root, leaving out build output and hidden directories. */
    List<Path> markdownFiles() {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> p.getFileName().toString().endsWith(".md"))
                    .filter(Files::isRegularFile)
                    .filter(p -> root.relativize(p).getNameCount() == 1 || !skipped(root.relativize(p).getParent()))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean skipped(Path directory) {
        for (Path part : directory) {
            String name = part.toString();
            if (name.startsWith(".") || SKIPPED_DIRECTORIES.contains(name)) {
                return true;
            }
        }
        return false;
    }

    /** The broken links of {@code files}, in file and line order. */
    List<Broken> check(List<Path> files) {
        List<Broken> broken = new ArrayList<>();
        for (Path file : files) {
            check(file.toAbsolutePath().normalize(), broken);
        }
        return broken;
    }

    private void check(Path file, List<Broken> broken) {
        Document doc = document(file);
        String name = root.relativize(file).toString();
        for (Link link : doc.links) {
            Optional<String> reason = link.reference() ? referenceProblem(doc, link.target())
                    : problem(file, link.target());
            reason.ifPresent(r -> broken.add(new Broken(name, link.line(), link.target(), r)));
        }
    }

    private static Optional<String> referenceProblem(Document doc, String label) {
        return doc.definitions.contains(label(label)) ? Optional.empty()
                : Optional.of("no reference definition [" + label + "]");
    }

    /** Why {@code target}, written in {@code file}, does not resolve; empty when it does. */
    private Optional<String> problem(Path file, String target) {
        if (target.isEmpty()) {
            return Optional.of("empty link target");
        }
        if (SCHEME.matcher(target).find()) {
            return externalProblem(target);
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : decode(target.substring(hash + 1));
        Path resolved;
        if (path.isEmpty()) {
            resolved = file;
        } else {
            String decoded = decode(path);
            if (decoded.contains("?")) {
                decoded = decoded.substring(0, decoded.indexOf('?'));
            }
            resolved = (decoded.startsWith("/") ? root.resolve(decoded.substring(1)) : file.resolveSibling(decoded))
                    .normalize();
            if (!resolved.startsWith(root)) {
                return Optional.of("points outside the repository");
            }
            if (!Files.exists(resolved)) {
                return Optional.of("no such file or directory");
            }
        }
        if (anchor == null) {
            return Optional.empty();
        }
        return anchorProblem(resolved, anchor);
    }

    private Optional<String> anchorProblem(Path target, String anchor) {
        Path page = Files.isDirectory(target) ? target.resolve("README.md") : target;
        if (!page.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md")) {
            return LINE_ANCHOR.matcher(anchor).matches() ? Optional.empty()
                    : Optional.of("anchor #" + anchor + " on a file that is not Markdown");
        }
        if (!Files.isRegularFile(page)) {
            return Optional.of("anchor #" + anchor + " on a directory without README.md");
        }
        return document(page).anchors.contains(anchor) ? Optional.empty()
                : Optional.of("no heading or anchor #" + anchor + " in " + root.relativize(page));
    }

    private static Optional<String> externalProblem(String target) {
        URI uri;
        try {
            uri = new URI(target);
        } catch (URISyntaxException e) {
            return Optional.of("malformed URL: " + e.getReason());
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if ((scheme.equals("http") || scheme.equals("https")) && (uri.getHost() == null || uri.getHost().isEmpty())) {
            return Optional.of("URL without a host");
        }
        if (scheme.equals("mailto") && !uri.getSchemeSpecificPart().contains("@")) {
            return Optional.of("mailto without an address");
        }
        return Optional.empty();
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return text; // a lone '%': compare the text as written
        }
    }

    private Document document(Path file) {
        return documents.computeIfAbsent(file, f -> {
            try {
                return Document.read(Files.readAllLines(f, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** A reference label as Markdown matches it: case-insensitive, inner white space collapsed. */
    static String label(String text) {
        return text.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    /**
     * The anchor GitHub gives a heading: its text lower-cased, punctuation other than '-' and '_'
     * dropped, each space turned into '-'. Markup is removed first: links and images keep their
     * text, code keeps its content, HTML tags and entities go.
     */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replaceAll("\\[([^\\]]*)\\]\\[[^\\]]*\\]", "$1")
                .replaceAll("<[^>]*>", "")
                .replaceAll("&[a-zA-Z]+;|&#\\d+;", "");
        return text.strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
                .replace(' ', '-');
    }

    /** One link as written: a target to resolve, or a reference label that needs a definition. */
    private record Link(int line, String target, boolean reference) {}

    /** What a Markdown file offers to links (anchors, definitions) and the links it holds. */
    private static final class Document {
        private final Set<String> anchors = new HashSet<>();
        private final Set<String> definitions = new HashSet<>();
        private final List<Link> links = new ArrayList<>();
        private final Map<String, Integer> slugCounts = new HashMap<>();

        static Document read(List<String> lines) {
            Document doc = new Document();
            boolean[] code = codeLines(lines);
            List<String> prose = proseLines(lines, code);
            for (int i = 0; i < prose.size(); i++) {
                doc.readLine(lines.get(i), prose, i, code);
            }
            return doc;
        }

        /** Reads line {@code i}: {@code raw} as written (headings keep their code), {@code prose} without code. */
        private void readLine(String raw, List<String> prose, int i, boolean[] code) {
            String text = prose.get(i);
            if (code[i]) {
                return;
            }
            int line = i + 1;
            Matcher heading = ATX_HEADING.matcher(raw);
            if (heading.matches()) {
                addHeading(heading.group(2) == null ? "" : heading.group(2));
            } else if (i + 1 < prose.size() && !code[i + 1] && !text.isBlank() && !LIST_ITEM.matcher(text).find()
                    && SETEXT_UNDERLINE.matcher(prose.get(i + 1)).matches() && !text.strip().startsWith("|")) {
                addHeading(raw.strip());
            }
            Matcher anchor = HTML_ANCHOR.matcher(text);
            while (anchor.find()) {
                anchors.add(anchor.group(1));
            }
            Matcher definition = REFERENCE_DEFINITION.matcher(text);
            if (definition.find()) {
                definitions.add(label(definition.group(1)));
                links.add(new Link(line, definition.group(2), false));
                return;
            }
            readLinks(text, line);
        }

        private void addHeading(String text) {
            String base = slug(text);
            String result = base;
            while (slugCounts.containsKey(result)) {
                int n = slugCounts.merge(base, 1, Integer::sum);
                result = base + "-" + n;
            }
            slugCounts.put(result, 0);
            anchors.add(result);
        }

        private void readLinks(String text, int line) {
            int at = text.indexOf("](");
            while (at >= 0) {
                int end = destinationEnd(text, at + 2);
                links.add(new Link(line, destination(text.substring(at + 2, end)), false));
                at = text.indexOf("](", end);
            }
            Matcher reference = FULL_REFERENCE.matcher(text);
            while (reference.find()) {
                String label = reference.group(1).isEmpty() ? collapsedLabel(text, reference.start())
                        : reference.group(1);
                if (!label.isEmpty()) {
                    links.add(new Link(line, label, true));
                }
            }
            Matcher autolink = AUTOLINK.matcher(text);
            while (autolink.find()) {
                links.add(new Link(line, autolink.group(1), false));
            }
            Matcher html = HTML_LINK.matcher(text);
            while (html.find()) {
                links.add(new Link(line, html.group(1), false));
            }
        }

        /** The text of {@code [label][]}, whose closing bracket is at {@code close}. */
        private static String collapsedLabel(String text, int close) {
            int open = text.lastIndexOf('[', close);
            return open < 0 ? "" : text.substring(open + 1, close);
        }

        /** Where the parenthesized part that starts at {@code from} ends (after its ')'). */
        private static int destinationEnd(String text, int from) {
            int depth = 0;
            boolean angle = false;
            for (int i = from; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '<' && i == from) {
                    angle = true;
                } else if (c == '>' && angle) {
                    angle = false;
                } else if (c == '(' && !angle) {
                    depth++;
                } else if (c == ')' && !angle) {
                    if (depth == 0) {
                        return i + 1;
                    }
                    depth--;
                }
            }
            return text.length();
        }

        /** The destination of {@code (dest "title")}, without the title and angle brackets. */
        private static String destination(String inside) {
            String text = inside.endsWith(")") ? inside.substring(0, inside.length() - 1) : inside;
            text = text.strip();
            if (text.startsWith("<")) {
                int close = text.indexOf('>');
                return close < 0 ? text.substring(1) : text.substring(1, close);
            }
            int space = text.indexOf(' ');
            return space < 0 ? text : text.substring(0, space);
        }

        /** The lines with inline code, escapes and HTML comments blanked out. */
        private static List<String> proseLines(List<String> lines, boolean[] code) {
            List<String> prose = new ArrayList<>(lines.size());
            boolean inComment = false;
            for (int i = 0; i < lines.size(); i++) {
                String text = lines.get(i);
                if (code[i]) {
                    prose.add(text);
                    continue;
                }
                StringBuilder kept = new StringBuilder();
                int at = 0;
                while (at < text.length()) {
                    int next = text.indexOf(inComment ? "-->" : "<!--", at);
                    if (next < 0) {
                        kept.append(inComment ? "" : text.substring(at));
                        break;
                    }
                    kept.append(inComment ? "" : text.substring(at, next));
                    at = next + (inComment ? 3 : 4);
                    inComment = !inComment;
                }
                code[i] = inComment && kept.length() == 0;
                String noEscapes = ESCAPE.matcher(kept).replaceAll("  ");
                prose.add(INLINE_CODE.matcher(noEscapes).replaceAll(m -> " ".repeat(m.group().length())));
            }
            return prose;
        }

        /**
         * Which lines belong to a code block: fenced ({@code ```} or {@code ~~~}, at any indentation so
         * fences inside list items count) or indented by four columns beyond the enclosing list item's
         * content after a blank line.
         */
        static boolean[] codeLines(List<String> lines) {
            boolean[] code = new boolean[lines.size()];
            String fence = null;
            boolean previousBlank = true;
            boolean previousCode = false;
            int listIndent = -1;
            for (int i = 0; i < lines.size(); i++) {
                String text = lines.get(i);
                if (fence != null) {
                    code[i] = true;
                    String stripped = text.strip();
                    char fenceChar = fence.charAt(0);
                    if (stripped.startsWith(fence) && stripped.chars().allMatch(c -> c == fenceChar)) {
                        fence = null;
                    }
                    continue;
                }
                Matcher open = FENCE.matcher(text);
                if (open.matches() && !(open.group(2).startsWith("`") && open.group(3).contains("`"))) {
                    code[i] = true;
                    fence = open.group(2);
                    previousBlank = false;
                    previousCode = false;
                    continue;
                }
                if (text.isBlank()) {
                    previousBlank = true;
                    continue;
                }
                int indent = indentation(text);
                int base = listIndent < 0 ? 0 : listIndent;
                if ((previousBlank || previousCode) && indent >= base + 4) {
                    code[i] = true;
                    previousCode = true;
                    previousBlank = false;
                    continue;
                }
                Matcher item = LIST_ITEM.matcher(text);
                if (item.find()) {
                    int spaces = item.group(3).length();
                    // content starts after the marker and its spaces; five or more make the rest indented code
                    int gap = spaces > 4 ? 1 : Math.max(spaces, 1);
                    listIndent = indentation(item.group(1)) + item.group(2).length() + gap;
                } else if (previousBlank && indent < base) {
                    listIndent = -1;
                }
                previousBlank = false;
                previousCode = false;
            }
            return code;
        }

        private static int indentation(String text) {
            int columns = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == ' ') {
                    columns++;
                } else if (c == '\t') {
                    columns += 4 - columns % 4;
                } else {
                    break;
                }
            }
            return columns;
        }
    }
}
