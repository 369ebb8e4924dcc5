package io.neptune.examples.blast;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code blastn}'s tabular output ({@code -outfmt "6 sseqid bitscore evalue"}, the
 * {@linkplain #OUTPUT_FORMAT format} {@link BlastDatabase}'s command asks for) and merges the
 * answers of several partitions.
 *
 * <p>{@code blastn} writes one line per high-scoring segment pair, so a sequence that matches the
 * query in two places has two lines; a hit is the sequence's best pair. Hits are ordered by bit
 * score, best first (then by e-value, then id, so the order is total and the same on every run).
 * Bit scores do not depend on the database's size, and every partition computes e-values against
 * the whole database's size ({@code -dbsize}), so hits of different partitions compare directly.
 *
 * <p>Thread-safety: stateless.
 */
public final class BlastHits {
    /** The {@code -outfmt} value the output must have been written with. */
    public static final String OUTPUT_FORMAT = "6 sseqid bitscore evalue";

    /** Best first: higher bit score, then lower e-value, then id. */
    static final Comparator<Hit> BEST_FIRST = Comparator.comparingDouble(Hit::score).reversed()
            .thenComparingDouble(Hit::evalue).thenComparing(Hit::id);

    private BlastHits() {}

    /**
     * One database sequence that matches the query.
     *
     * @param id the sequence's id
     * @param score the bit score of its best alignment with the query
     * @param evalue that alignment's expect value against the whole database
     */
    public record Hit(String id, double score, double evalue) {
        /** Validates the fields. */
        public Hit {
            requireNonNull(id, "id");
        }
    }

    /**
     * The hits in {@code output}, best first, one per sequence.
     *
     * @throws IllegalArgumentException naming the line if a line is not {@code id<TAB>bitscore<TAB>evalue}
     */
    public static List<Hit> parse(String output) {
        Map<String, Hit> best = new HashMap<>();
        String[] lines = output.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\t", -1);
            Hit hit;
            try {
                if (fields.length != 3 || fields[0].isEmpty()) {
                    throw new NumberFormatException("3 fields expected");
                }
                hit = new Hit(fields[0], Double.parseDouble(fields[1]), Double.parseDouble(fields[2]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("blastn output line " + (i + 1) + ": '" + abbreviate(line)
                        + "' (expected: sseqid, bitscore and evalue separated by tabs, -outfmt \"" + OUTPUT_FORMAT
                        + "\")");
            }
            best.merge(hit.id(), hit, (a, b) -> BEST_FIRST.compare(a, b) <= 0 ? a : b);
        }
        List<Hit> hits = new ArrayList<>(best.values());
        hits.sort(BEST_FIRST);
        return hits;
    }

    /** The best {@code k} hits of several partitions' lists (each sequence lives in one partition). */
    public static List<Hit> merge(Collection<List<Hit>> partitions, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k: " + k + " (expected: >= 1)");
        }
        return partitions.stream().flatMap(List::stream).sorted(BEST_FIRST).limit(k).toList();
    }

    private static String abbreviate(String line) {
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }
}
