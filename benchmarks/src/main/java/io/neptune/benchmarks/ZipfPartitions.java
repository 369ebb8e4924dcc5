package io.neptune.benchmarks;

import java.util.Arrays;
import java.util.Random;

/**
 * Partition popularity following a Zipf distribution, labelled as in the dissertation (§5.4.2) by
 * its <em>workload imbalance factor</em>: the share of requests that go to the most popular
 * partition. With {@code n} partitions a factor of {@code 1/n} is the uniform distribution and a
 * factor of 1 sends every request to one partition; in between, the Zipf exponent {@code s} is the
 * one for which rank 1 gets that share, {@code 1 / sum(k^-s, k = 1..n)}. Rank {@code k} is partition
 * {@code k - 1}, so the most popular partitions have their primaries on different nodes.
 *
 * <p>Thread-safety: immutable; {@link #next} takes the caller's random source.
 */
final class ZipfPartitions {
    private final double imbalance;
    private final double exponent;
    private final double[] cumulative;

    private ZipfPartitions(double imbalance, double exponent, double[] probabilities) {
        this.imbalance = imbalance;
        this.exponent = exponent;
        this.cumulative = new double[probabilities.length];
        double sum = 0;
        for (int i = 0; i < probabilities.length; i++) {
            sum += probabilities[i];
            cumulative[i] = sum;
        }
        cumulative[cumulative.length - 1] = 1.0;
    }

    /** The distribution over {@code partitions} partitions, the most popular getting {@code imbalance} of requests. */
    static ZipfPartitions withImbalance(int partitions, double imbalance) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 1)");
        }
        double uniform = 1.0 / partitions;
        if (imbalance < uniform - 1e-12 || imbalance > 1) {
            throw new IllegalArgumentException("imbalance: " + imbalance + " (expected: 1/" + partitions + "..1)");
        }
        if (imbalance >= 1 - 1e-12) {
            double[] p = new double[partitions];
            p[0] = 1;
            return new ZipfPartitions(1, Double.POSITIVE_INFINITY, p);
        }
        double low = 0;
        double high = 64;
        for (int i = 0; i < 200; i++) {
            double mid = (low + high) / 2;
            if (topShare(partitions, mid) < imbalance) {
                low = mid;
            } else {
                high = mid;
            }
        }
        double s = imbalance <= uniform + 1e-12 ? 0 : (low + high) / 2;
        double[] p = new double[partitions];
        double norm = 0;
        for (int k = 1; k <= partitions; k++) {
            norm += Math.pow(k, -s);
        }
        for (int k = 1; k <= partitions; k++) {
            p[k - 1] = Math.pow(k, -s) / norm;
        }
        return new ZipfPartitions(imbalance, s, p);
    }

    private static double topShare(int partitions, double s) {
        double norm = 0;
        for (int k = 1; k <= partitions; k++) {
            norm += Math.pow(k, -s);
        }
        return 1 / norm;
    }

    /** A partition drawn from the distribution. */
    int next(Random random) {
        int i = Arrays.binarySearch(cumulative, random.nextDouble());
        return Math.min(i >= 0 ? i : -i - 1, cumulative.length - 1);
    }

    /** The probability of {@code partition}. */
    double probability(int partition) {
        return cumulative[partition] - (partition == 0 ? 0 : cumulative[partition - 1]);
    }

    /** The partitions. */
    int partitions() {
        return cumulative.length;
    }

    /** The share of the most popular partition. */
    double imbalance() {
        return imbalance;
    }

    /** The Zipf exponent; infinite for an imbalance of 1. */
    double exponent() {
        return exponent;
    }
}
