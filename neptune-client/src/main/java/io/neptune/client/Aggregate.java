package io.neptune.client;

import io.neptune.core.NeptuneException;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The outcome of one read scattered over many partitions: the results that arrived and the
 * partitions that failed, so a caller can serve a partial answer (harvest) or give up.
 *
 * @param results results by partition id
 * @param failures failures by partition id
 * @param <T> the response type
 */
public record Aggregate<T>(SortedMap<Integer, T> results, SortedMap<Integer, NeptuneException> failures) {
    /** Copies the maps. */
    public Aggregate {
        results = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(results));
        failures = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(failures));
    }

    /** Whether every partition answered. */
    public boolean isComplete() {
        return failures.isEmpty();
    }

    /** Builds an aggregate from plain maps. */
    public static <T> Aggregate<T> of(Map<Integer, T> results, Map<Integer, NeptuneException> failures) {
        return new Aggregate<>(new TreeMap<>(results), new TreeMap<>(failures));
    }
}
