package io.neptune.examples.search;

import io.neptune.examples.search.SearchService.PutDocument;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The search example's real corpus: the system's manual pages ({@code /usr/share/man/man1/*.gz},
 * shipped by the Debian packages installed), read with {@link GZIPInputStream} and stripped of
 * their roff markup roughly: requests and escapes go, text and headings stay. A page becomes a
 * document whose id is its file name without {@code .gz} (e.g. {@code ls.1}), whose title is its
 * NAME line (e.g. {@code ls - list directory contents}) and whose body is the beginning of its
 * text, up to {@link SearchService#MAX_BODY_BYTES}.
 *
 * <p>Thread-safety: stateless.
 */
public final class ManPages {
    /** Where Debian installs section 1 (user commands) of the manual. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/usr/share/man/man1");
    /** How much of a page is decompressed: its body is at most 4 KiB of text, which comes from far less. */
    static final int MAX_SOURCE_BYTES = 64 * 1024;

    private static final Pattern FONT = Pattern.compile("\\\\f(\\[[^\\]]*\\]|\\(..|.)");
    private static final Pattern SIZE = Pattern.compile("\\\\s(\\[[^\\]]*\\]|\\(..|[+-]?\\d{1,2})");
    private static final Pattern STRING = Pattern.compile("\\\\\\*(\\[[^\\]]*\\]|\\(..|.)");
    private static final Pattern GLYPH = Pattern.compile("\\\\(\\(..|\\[[^\\]]*\\])");
    private static final Pattern MOTION = Pattern.compile("\\\\[hvwlLoxkbDHSXNRYZ]'[^']*'");
    private static final Pattern OTHER_ESCAPE = Pattern.compile("\\\\(.)");
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"?|(\\S+)");

    private ManPages() {}

    /**
     * Reads up to {@code limit} pages of {@code directory}, an even sample across the pages in name
     * order when there are more (so every part of the alphabet is there). Symbolic links and
     * {@code .so} redirects (aliases of another page) are skipped, and so are unreadable or empty pages.
     *
     * @return the documents; empty if the directory is missing or holds no page
     */
    public static List<PutDocument> read(Path directory, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit: " + limit + " (expected: >= 1)");
        }
        List<Path> pages = pages(directory);
        // the sample first, then (should some be redirects or empty) the other pages in order
        Set<Integer> order = new LinkedHashSet<>();
        double stride = Math.max(1.0, (double) pages.size() / limit);
        for (double i = 0; i < pages.size(); i += stride) {
            order.add((int) i);
        }
        for (int i = 0; i < pages.size(); i++) {
            order.add(i);
        }
        List<PutDocument> documents = new ArrayList<>();
        for (Iterator<Integer> i = order.iterator(); i.hasNext() && documents.size() < limit; ) {
            read(pages.get(i.next())).ifPresent(documents::add);
        }
        return documents;
    }

    /** The regular {@code *.gz} files of {@code directory}, in name order; empty if it does not exist. */
    static List<Path> pages(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".gz"))
                    .filter(p -> !Files.isSymbolicLink(p) && Files.isRegularFile(p))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + directory, e);
        }
    }

    /** The document of the page in {@code file}, if it is a readable page with text. */
    static Optional<PutDocument> read(Path file) {
        String name = file.getFileName().toString();
        String id = name.substring(0, name.length() - ".gz".length());
        byte[] source;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            source = in.readNBytes(MAX_SOURCE_BYTES);
        } catch (IOException e) {
            return Optional.empty(); // not gzip, or unreadable: not a page we can index
        }
        return parse(id, new String(source, StandardCharsets.UTF_8));
    }

    /**
     * The document of one page's roff {@code source}; empty for a {@code .so} redirect or a page
     * without text. Rough by design: enough for a search engine, not a formatter.
     */
    static Optional<PutDocument> parse(String id, String source) {
        if (id.isBlank() || id.length() > SearchService.MAX_NAME_LENGTH || source.startsWith(".so ")) {
            return Optional.empty();
        }
        StringBuilder body = new StringBuilder();
        String title = null;
        boolean inName = false;
        boolean skipping = false; // inside a macro definition (.de ... ..)
        for (String line : source.split("\\R")) {
            if (body.length() > SearchService.MAX_BODY_BYTES && title != null && !inName) {
                break; // the body is cut to that many bytes, which as many characters hold at least
            }
            if (skipping) {
                skipping = !line.startsWith("..");
                continue;
            }
            String text;
            if (line.startsWith(".") || line.startsWith("'")) {
                String request = line.substring(1).strip();
                String macro = request.split("\\s+", 2)[0];
                String args = request.length() > macro.length() ? request.substring(macro.length()).strip() : "";
                if (macro.equals("de") || macro.equals("de1") || macro.equals("am")) {
                    skipping = true;
                    continue;
                }
                if (macro.equals("SH") || macro.equals("Sh")) {
                    inName = unquote(args, " ").equalsIgnoreCase("NAME");
                }
                text = requestText(macro, args);
            } else {
                text = line;
            }
            text = clean(text);
            if (text.isBlank()) {
                continue;
            }
            if (inName && !isHeading(line)) {
                if (title == null) {
                    title = text.strip();
                } else if (text.startsWith("- ") && !title.contains(" - ")) {
                    title = title + " " + text.strip(); // mdoc: .Nm name, then .Nd description
                }
            }
            body.append(text.strip()).append('\n');
        }
        String bodyText = fit(body.toString().strip());
        if (bodyText.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PutDocument(id, shorten(title == null || title.isBlank() ? id : title), bodyText));
    }

    private static boolean isHeading(String line) {
        return line.startsWith(".SH") || line.startsWith(".Sh");
    }

    /** The text a request line contributes: headings and font macros keep their arguments, the rest none. */
    private static String requestText(String macro, String args) {
        return switch (macro) {
            case "SH", "SS", "Sh", "Ss", "B", "I", "SM", "SB", "Nm", "Fl", "Ar", "Cm", "Pa", "Op", "It", "Dl", "Ql",
                    "Em", "Sy", "Li", "Va", "Ev", "Xr" -> unquote(args, " ");
            case "BR", "RB", "IR", "RI", "BI", "IB" -> unquote(args, ""); // alternating fonts: no spaces between
            case "Nd" -> "- " + args;
            case "IP", "TP", "HP" -> args.isEmpty() ? "" : unquote(args, " ").split(" ")[0];
            default -> "";
        };
    }

    private static String unquote(String args, String separator) {
        List<String> words = new ArrayList<>();
        Matcher m = QUOTED.matcher(args);
        while (m.find()) {
            words.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return String.join(separator, words);
    }

    /** Removes roff escapes from a line of text, keeping the characters they stand for where it matters. */
    static String clean(String line) {
        if (line.indexOf('\\') < 0) {
            return line; // every escape, and a comment, starts with a backslash
        }
        int comment = line.indexOf("\\\"");
        String text = comment >= 0 ? line.substring(0, comment) : line;
        text = text.replace("\\\\", "\u0000"); // a literal backslash, restored below
        text = text.replace("\\-", "-").replace("\\e", "\u0000").replace("\\&", "").replace("\\ ", " ")
                .replace("\\~", " ").replace("\\0", " ").replace("\\c", "");
        text = FONT.matcher(text).replaceAll("");
        text = SIZE.matcher(text).replaceAll("");
        text = STRING.matcher(text).replaceAll("");
        text = MOTION.matcher(text).replaceAll("");
        text = GLYPH.matcher(text).replaceAll(m -> Matcher.quoteReplacement(glyph(m.group(1))));
        text = OTHER_ESCAPE.matcher(text).replaceAll(m -> {
            String c = m.group(1);
            return ",/|^%:{}".contains(c) ? "" : Matcher.quoteReplacement(c);
        });
        return text.replace('\u0000', '\\');
    }

    private static String glyph(String name) {
        String bare = name.startsWith("(") ? name.substring(1) : name.substring(1, name.length() - 1);
        return switch (bare) {
            case "em" -> "\u2014";
            case "en", "hy", "mi" -> "-";
            case "aq", "oq", "cq", "lq", "rq", "dq" -> bare.equals("aq") || bare.equals("oq") || bare.equals("cq")
                    ? "'" : "\"";
            case "bu" -> "\u2022";
            case "co" -> "\u00a9";
            case "rg" -> "\u00ae";
            case "ga" -> "`";
            case "ti", "ap" -> "~";
            case "ha", "a^" -> "^";
            case "rs" -> "\\";
            case "lB" -> "[";
            case "rB" -> "]";
            case "lC" -> "{";
            case "rC" -> "}";
            case "<=" -> "\u2264";
            case ">=" -> "\u2265";
            case "->" -> "\u2192";
            default -> "";
        };
    }

    /** {@code text} cut to at most {@link SearchService#MAX_BODY_BYTES} UTF-8 bytes, at a whole character. */
    static String fit(String text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + size > SearchService.MAX_BODY_BYTES) {
                return text.substring(0, i);
            }
            bytes += size;
            i += Character.charCount(cp);
        }
        return text;
    }

    private static String shorten(String title) {
        String single = title.replaceAll("\\s+", " ").strip();
        if (single.length() <= SearchService.MAX_NAME_LENGTH) {
            return single;
        }
        int end = SearchService.MAX_NAME_LENGTH - 1;
        if (Character.isLowSurrogate(single.charAt(end))) {
            end--;
        }
        return single.substring(0, end) + "\u2026";
    }
}
