package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntUnaryOperator;

/**
 * The dissertation's simulation model of chapter 3, without any overhead: {@code servers} servers,
 * each one worker with a FIFO queue; a request goes to the server a policy picks at its arrival
 * time, and load information is exact and free (ideal, random polling) or as of the server's latest
 * announcement (broadcast). Requests come from the same generator as the measured runs ({@link
 * Workload}). {@link LoadBalancingExperiment} prints it next to the measurements so that the gap
 * between the dissertation and Neptune can be split into "the model says so" and "overhead".
 *
 * <p>Thread-safety: stateless; each call simulates on its own.
 */
final class QueueingModel {
    private final int servers;

    /** A model of {@code servers} single-worker servers. */
    QueueingModel(int servers) {
        this.servers = servers;
    }

    /**
     * The mean response time in milliseconds of {@code setup} on {@code workload} at {@code load}
     * over the requests that arrive in [{@code warmupMillis}, {@code warmupMillis + windowMillis}),
     * the system starting empty; {@code intervalMillis} is the mean announce interval (broadcast
     * only). With the seed of a measured run, the requests are the very same as the run's.
     */
    double meanResponseMillis(Workload workload, double load, PolicySetup setup, double intervalMillis, long seed,
            double warmupMillis, double windowMillis) {
        Random requests = new Random(seed);
        Random choices = new Random(seed ^ 0x5DEECE66DL);
        double rate = workload.rate(load, servers, 1);
        double[] free = new double[servers]; // when each server's queue empties, in ms
        List<ArrayDeque<Double>> inSystem = new ArrayList<>(servers); // completion times of the requests at each server
        double[] announced = new double[servers];
        double[] nextAnnounce = new double[servers];
        for (int s = 0; s < servers; s++) {
            inSystem.add(new ArrayDeque<>());
            nextAnnounce[s] = choices.nextDouble() * intervalMillis;
        }
        double now = 0;
        double sum = 0;
        long recorded = 0;
        double end = warmupMillis + windowMillis;
        while (true) {
            now += workload.arrivalNanos(requests, rate) / 1e6;
            double service = workload.serviceMicros(requests) / 1e3;
            if (now >= end) {
                break;
            }
            if (setup.policy() == BalancingPolicy.BROADCAST) {
                for (int s = 0; s < servers; s++) {
                    while (nextAnnounce[s] <= now) {
                        announced[s] = queueLength(inSystem.get(s), nextAnnounce[s]);
                        nextAnnounce[s] += intervalMillis * (0.5 + choices.nextDouble());
                    }
                }
            }
            int target = pick(setup, inSystem, announced, now, choices);
            double done = Math.max(now, free[target]) + service;
            free[target] = done;
            inSystem.get(target).addLast(done);
            if (now >= warmupMillis) {
                sum += done - now;
                recorded++;
            }
        }
        return sum / recorded;
    }

    private int pick(PolicySetup setup, List<ArrayDeque<Double>> inSystem, double[] announced, double now,
            Random random) {
        return switch (setup.policy()) {
            case RANDOM -> random.nextInt(servers);
            case ROUND_ROBIN, SERVER_PARTITIONING -> throw new IllegalArgumentException("policy: " + setup.policy()
                    + " (expected: not modelled)");
            case IDEAL -> leastOf(servers, i -> i, s -> queueLength(inSystem.get(s), now), random);
            case BROADCAST -> leastOf(servers, i -> i, s -> announced[s], random);
            // Exact, free information: load-aware is at best random polling of its sample; p2c's own
            // calls in flight are the queue lengths when one dispatcher sends every call.
            case RANDOM_POLLING, LOAD_AWARE, P2C -> {
                int size = setup.policy() == BalancingPolicy.P2C ? 2 : setup.pollSize();
                int[] sample = sample(Math.min(size, servers), random);
                yield leastOf(sample.length, i -> sample[i], s -> queueLength(inSystem.get(s), now), random);
            }
        };
    }

    private static int leastOf(int count, IntUnaryOperator server, IntToDoubleFunction load, Random random) {
        int best = -1;
        double bestLoad = Double.MAX_VALUE;
        int ties = 0;
        for (int i = 0; i < count; i++) {
            int s = server.applyAsInt(i);
            double l = load.applyAsDouble(s);
            if (l < bestLoad) {
                best = s;
                bestLoad = l;
                ties = 1;
            } else if (l == bestLoad && random.nextInt(++ties) == 0) {
                best = s;
            }
        }
        return best;
    }

    private int[] sample(int size, Random random) {
        int[] all = new int[servers];
        for (int i = 0; i < servers; i++) {
            all[i] = i;
        }
        for (int i = 0; i < size; i++) {
            int j = i + random.nextInt(servers - i);
            int swap = all[i];
            all[i] = all[j];
            all[j] = swap;
        }
        return Arrays.copyOf(all, size);
    }

    /** Requests at a server at {@code time}, forgetting those done by then (times only move forward). */
    private static int queueLength(ArrayDeque<Double> inSystem, double time) {
        while (!inSystem.isEmpty() && inSystem.peekFirst() <= time) {
            inSystem.pollFirst();
        }
        return inSystem.size();
    }
}
