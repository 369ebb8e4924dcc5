package io.neptune.examples.search;

import io.neptune.examples.search.SearchService.PutDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded synthetic documents, for scale tests and for machines without man pages: words made of
 * syllables, drawn from a Zipf-like distribution (the k-th most frequent word about 1/k as often as
 * the first), so queries meet the skew of real text. The same seed and count give the same
 * documents on every JVM.
 *
 * <p>Thread-safety: stateless.
 */
public final class SyntheticCorpus {
    /** The vocabulary size. */
    static final int WORDS = 5_000;
    private static final String[] SYLLABLES = {"ka", "lo", "mi", "ne", "tu", "ra", "si", "po", "de", "fa", "gu",
        "be", "zo", "ch", "an", "or", "el", "is", "um", "ex"};

    private SyntheticCorpus() {}

    /** {@code count} documents with ids {@code synthetic-000000...}, generated from {@code seed}. */
    public static List<PutDocument> generate(long seed, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count: " + count + " (expected: >= 0)");
        }
        Random random = new Random(seed);
        List<String> vocabulary = vocabulary(random);
        double[] cumulative = new double[WORDS];
        double sum = 0;
        for (int i = 0; i < WORDS; i++) {
            sum += 1.0 / (i + 1);
            cumulative[i] = sum;
        }
        List<PutDocument> documents = new ArrayList<>(count);
        for (int d = 0; d < count; d++) {
            String title = words(random, vocabulary, cumulative, sum, 2 + random.nextInt(4));
            String body = ManPages.fit(words(random, vocabulary, cumulative, sum, 60 + random.nextInt(400)));
            documents.add(new PutDocument(String.format("synthetic-%06d", d), title, body));
        }
        return documents;
    }

    private static List<String> vocabulary(Random random) {
        java.util.Set<String> words = new java.util.LinkedHashSet<>();
        while (words.size() < WORDS) {
            StringBuilder word = new StringBuilder();
            for (int s = 1 + random.nextInt(4); s > 0; s--) {
                word.append(SYLLABLES[random.nextInt(SYLLABLES.length)]);
            }
            words.add(word.toString());
        }
        return new ArrayList<>(words);
    }

    private static String words(Random random, List<String> vocabulary, double[] cumulative, double sum, int n) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int index = java.util.Arrays.binarySearch(cumulative, random.nextDouble() * sum);
            text.append(i == 0 ? "" : " ").append(vocabulary.get(Math.min(WORDS - 1, index < 0 ? -index - 1 : index)));
        }
        return text.toString();
    }
}
