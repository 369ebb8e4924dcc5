package io.neptune.benchmarks;

import io.neptune.core.ClassStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The allocation side of Figure 4.12: how much of the servers' time each class used between two
 * samples, from the nodes' {@link ClassStats#usedSeconds()}. A server whose counters went back (it
 * restarted) or that is missing (down) counts from zero at its next sample, so a failure never
 * shows as negative use.
 *
 * <p>Not thread-safe: one sampling thread.
 */
final class ClassUsage {
    private final List<String> classes;
    private final List<Map<String, Double>> previous = new ArrayList<>();

    /** Meters {@code classes} (their order is the order of {@link #sample}'s result). */
    ClassUsage(List<String> classes) {
        this.classes = List.copyOf(classes);
    }

    /**
     * Takes a sample: {@code servers.get(i)} is server {@code i}'s counters now (empty while it is
     * down); returns, per class, the seconds of worker time used since the last sample.
     */
    double[] sample(List<List<ClassStats>> servers) {
        double[] used = new double[classes.size()];
        while (previous.size() < servers.size()) {
            previous.add(Map.of());
        }
        for (int i = 0; i < servers.size(); i++) {
            Map<String, Double> before = previous.get(i);
            Map<String, Double> now = new HashMap<>();
            boolean restarted = false;
            for (ClassStats c : servers.get(i)) {
                now.put(c.serviceClass(), c.usedSeconds());
                restarted |= c.usedSeconds() < before.getOrDefault(c.serviceClass(), 0.0);
            }
            for (int k = 0; k < classes.size(); k++) {
                double after = now.getOrDefault(classes.get(k), 0.0);
                used[k] += restarted ? after : Math.max(0, after - before.getOrDefault(classes.get(k), 0.0));
            }
            previous.set(i, now);
        }
        return used;
    }
}
