package io.neptune.examples.blast;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded synthetic nucleotide set, in families: each family has a random ancestor of 400 to 1,600
 * bases, and its members are copies of it with point substitutions (0 to 15% of the bases, a
 * different rate per member) and a few short insertions and deletions. A query cut from one member
 * therefore finds its relatives on every partition with graded scores, the shape of a real BLAST
 * search over related genes. No real sequence database ships with Debian, so the example uses this;
 * the same seed and sizes give the same sequences on every JVM.
 *
 * <p>Ids are {@code fam<family>-<member>}, e.g. {@code fam0012-03}: the hits of a query cut from a
 * member of family 12 are members of family 12.
 *
 * <p>Thread-safety: immutable.
 *
 * @param seed the random seed
 * @param families how many families, at least 1
 * @param members how many members each family has, at least 1
 */
public record SyntheticSequences(long seed, int families, int members) {
    /** The nucleotides the sequences are made of. */
    static final String BASES = "ACGT";
    /** Shortest and longest ancestor, in bases. */
    static final int MIN_LENGTH = 400;
    static final int MAX_LENGTH = 1_600;
    /** The highest substitution rate of a member. */
    static final double MAX_DIVERGENCE = 0.15;
    /** The chance that a base starts an insertion or a deletion of 1 to 3 bases. */
    static final double INDEL_RATE = 0.002;

    /** The set the demo uses: 250 families of 8, 2,000 sequences and about 2 million bases. */
    public static final SyntheticSequences DEMO = new SyntheticSequences(42, 250, 8);

    /** Validates the sizes. */
    public SyntheticSequences {
        if (families < 1 || members < 1) {
            throw new IllegalArgumentException("families: " + families + ", members: " + members
                    + " (expected: at least 1 each)");
        }
    }

    /** One sequence. */
    public record Sequence(String id, String bases) {
        /** Validates the fields. */
        public Sequence {
            requireNonNull(id, "id");
            requireNonNull(bases, "bases");
        }
    }

    /** How many sequences the set holds. */
    public int size() {
        return families * members;
    }

    /** Every sequence, family by family. */
    public List<Sequence> generate() {
        List<Sequence> sequences = new ArrayList<>(size());
        for (int family = 0; family < families; family++) {
            Random random = familyRandom(family);
            String ancestor = ancestor(random);
            for (int member = 0; member < members; member++) {
                sequences.add(new Sequence(id(family, member), mutate(ancestor, random.nextDouble() * MAX_DIVERGENCE,
                        random)));
            }
        }
        return sequences;
    }

    /**
     * A query for the demo's page: 300 bases from the middle of {@code family}'s ancestor, with 2%
     * of them changed, so it matches no member exactly and every member well.
     */
    public String exampleQuery(int family) {
        if (family < 0 || family >= families) {
            throw new IllegalArgumentException("family: " + family + " (expected: 0.." + (families - 1) + ")");
        }
        Random random = familyRandom(family);
        String ancestor = ancestor(random);
        int start = (ancestor.length() - 300) / 2;
        return substitute(ancestor.substring(start, start + 300), 0.02, new Random(seed ^ family));
    }

    /** The id of {@code member} of {@code family}. */
    public static String id(int family, int member) {
        return String.format("fam%04d-%02d", family, member);
    }

    private Random familyRandom(int family) {
        return new Random(seed * 1_000_003L + family);
    }

    private static String ancestor(Random random) {
        int length = MIN_LENGTH + random.nextInt(MAX_LENGTH - MIN_LENGTH + 1);
        StringBuilder bases = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            bases.append(BASES.charAt(random.nextInt(4)));
        }
        return bases.toString();
    }

    private static String mutate(String ancestor, double divergence, Random random) {
        StringBuilder bases = new StringBuilder(ancestor.length() + 16);
        for (int i = 0; i < ancestor.length(); i++) {
            if (random.nextDouble() < INDEL_RATE) {
                int length = 1 + random.nextInt(3);
                if (random.nextBoolean()) {
                    i += length - 1; // a deletion: skip the bases
                    continue;
                }
                for (int n = 0; n < length; n++) {
                    bases.append(BASES.charAt(random.nextInt(4)));
                }
            }
            bases.append(random.nextDouble() < divergence ? other(ancestor.charAt(i), random) : ancestor.charAt(i));
        }
        return bases.toString();
    }

    private static String substitute(String bases, double rate, Random random) {
        StringBuilder changed = new StringBuilder(bases);
        for (int i = 0; i < changed.length(); i++) {
            if (random.nextDouble() < rate) {
                changed.setCharAt(i, other(changed.charAt(i), random));
            }
        }
        return changed.toString();
    }

    private static char other(char base, Random random) {
        char replacement;
        do {
            replacement = BASES.charAt(random.nextInt(4));
        } while (replacement == base);
        return replacement;
    }
}
