package io.neptune.examples.search;

import io.neptune.examples.search.SearchService.Hit;
import io.neptune.examples.search.SearchService.Hits;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** Merges the partial answers of a scattered query into one top-k list. Stateless. */
public final class TopHits {
    /** Best first: higher score, then (for a deterministic order of ties) smaller id. */
    public static final Comparator<Hit> ORDER = Comparator.comparingDouble(Hit::score).reversed()
            .thenComparing(Hit::id);

    private TopHits() {}

    /**
     * The best {@code k} hits of all {@code partials}, in {@link #ORDER}.
     *
     * @param partials each partition's answer (its own top k)
     * @param k 1 or more
     */
    public static List<Hit> merge(Collection<Hits> partials, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k: " + k + " (expected: >= 1)");
        }
        List<Hit> all = new ArrayList<>();
        partials.forEach(partial -> all.addAll(partial.hits()));
        all.sort(ORDER);
        return List.copyOf(all.subList(0, Math.min(k, all.size())));
    }
}
