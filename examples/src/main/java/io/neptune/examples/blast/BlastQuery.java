package io.neptune.examples.blast;

/**
 * A nucleotide query, checked before it reaches {@code blastn}: 1 to {@value #MAX_LENGTH} IUPAC
 * nucleotide codes ({@code ACGTU}, the ambiguity codes {@code RYKMSWBDHV} and {@code N}), upper
 * case. {@link #parse} accepts what people paste: lower case, line breaks and spaces, and a FASTA
 * header line ({@code >name ...}) at the start.
 *
 * @param bases the query's bases, upper case, nothing else
 */
public record BlastQuery(String bases) {
    /** The longest query, in bases. */
    public static final int MAX_LENGTH = 10_000;
    /** The letters a query may hold. */
    public static final String NUCLEOTIDES = "ACGTURYKMSWBDHVN";

    /** Validates the bases. */
    public BlastQuery {
        if (bases == null || bases.isEmpty()) {
            throw new IllegalArgumentException("sequence: " + (bases == null ? "missing" : "empty")
                    + " (expected: 1.." + MAX_LENGTH + " nucleotides)");
        }
        if (bases.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("sequence: " + bases.length() + " bases (expected: at most "
                    + MAX_LENGTH + ")");
        }
        for (int i = 0; i < bases.length(); i++) {
            char c = bases.charAt(i);
            if (NUCLEOTIDES.indexOf(c) < 0) {
                throw new IllegalArgumentException("sequence: '" + printable(c) + "' at position " + (i + 1)
                        + " is not a nucleotide (expected: IUPAC codes " + NUCLEOTIDES + ")");
            }
        }
    }

    /**
     * Reads a pasted sequence: drops a leading FASTA header line and all whitespace, and upper-cases.
     *
     * @throws IllegalArgumentException naming the problem if what remains is not a valid query
     */
    public static BlastQuery parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("sequence: missing (expected: 1.." + MAX_LENGTH + " nucleotides)");
        }
        String body = text.strip();
        if (body.startsWith(">")) {
            int end = body.indexOf('\n');
            body = end < 0 ? "" : body.substring(end + 1);
        }
        StringBuilder bases = new StringBuilder(Math.min(body.length(), MAX_LENGTH + 1));
        for (int i = 0; i < body.length() && bases.length() <= MAX_LENGTH; i++) {
            char c = body.charAt(i);
            if (!Character.isWhitespace(c)) {
                bases.append(Character.toUpperCase(c));
            }
        }
        if (bases.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("sequence: more than " + MAX_LENGTH + " bases (expected: at most "
                    + MAX_LENGTH + ")");
        }
        return new BlastQuery(bases.toString());
    }

    /** The query as the FASTA {@code blastn} reads on its stdin. */
    public String fasta() {
        return ">query\n" + bases + "\n";
    }

    private static String printable(char c) {
        return Character.isISOControl(c) || Character.isSurrogate(c) ? String.format("\\u%04x", (int) c)
                : String.valueOf(c);
    }
}
