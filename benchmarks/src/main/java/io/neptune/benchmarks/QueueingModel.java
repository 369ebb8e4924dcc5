package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntUnaryOperator;

/**
 * The dissertation's simulation model of chapter 3, without any overhead: {@code servers} servers,
 * each with {@code workers} non-preemptive workers (the dissertation's model: 1) and a FIFO queue;
 * a request goes to the server a policy picks at its arrival time, and load information (the
 * requests at a server, running and queued) is exact and free (ideal, random polling) or as of the
 * server's latest announcement (broadcast). Requests come from the same generator as the measured
 * runs ({@link Workload}). {@link LoadBalancingExperiment} prints it next to the measurements so
 * that the gap between the dissertation and Neptune can be split into "the model says so" and
 * "overhead"; {@link DissertationConditions} runs it under the dissertation's other conditions.
 * {@link #queueLengths} samples one server's queue length instead, for {@link LoadIndexExperiment}
 * (Figure 3.1).
 *
 * <p>Thread-safety: stateless; each call simulates on its own.
 */
final class QueueingModel {
    private final int servers;
    private final int workers;

    /** A model of {@code servers} single-worker servers. */
    QueueingModel(int servers) {
        this(servers, 1);
    }

    /** A model of {@code servers} servers of {@code workers} workers each. */
    QueueingModel(int servers, int workers) {
        this.servers = servers;
        this.workers = workers;
    }

    /**
     * What one simulation measured over its window.
     *
     * @param meanMillis the mean response time
     * @param within the fraction of responses within the limit asked for
     */
    record Outcome(double meanMillis, double within) {}

    /**
     * The mean response time in milliseconds of {@code setup} on {@code workload} at {@code load}
     * over the requests that arrive in [{@code warmupMillis}, {@code warmupMillis + windowMillis}),
     * the system starting empty; {@code intervalMillis} is the mean announce interval (broadcast
     * only). With the seed of a measured run, the requests are the very same as the run's.
     */
    double meanResponseMillis(Workload workload, double load, PolicySetup setup, double intervalMillis, long seed,
            double warmupMillis, double windowMillis) {
        return simulate(workload, workload.rate(load, servers, workers), setup, intervalMillis, seed, warmupMillis,
                windowMillis, 0, Double.MAX_VALUE).meanMillis();
    }

    /**
     * Simulates {@code perSecond} requests per second of {@code workload}; every response takes
     * {@code latencyMillis} longer than its time at the server (the network, which does not delay
     * the server), and {@link Outcome#within} counts those within {@code limitMillis}.
     */
    Outcome simulate(Workload workload, double perSecond, PolicySetup setup, double intervalMillis, long seed,
            double warmupMillis, double windowMillis, double latencyMillis, double limitMillis) {
        Random requests = new Random(seed);
        Random choices = new Random(seed ^ 0x5DEECE66DL);
        double[][] free = new double[servers][workers]; // when each worker is next free, in ms
        List<PriorityQueue<Double>> inSystem = new ArrayList<>(servers); // completion times at each server
        double[] announced = new double[servers];
        double[] nextAnnounce = new double[servers];
        for (int s = 0; s < servers; s++) {
            inSystem.add(new PriorityQueue<>());
            nextAnnounce[s] = choices.nextDouble() * intervalMillis;
        }
        double now = 0;
        double sum = 0;
        long recorded = 0;
        long within = 0;
        double end = warmupMillis + windowMillis;
        while (true) {
            now += workload.arrivalNanos(requests, perSecond) / 1e6;
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
            double done = serve(free[target], now, service);
            inSystem.get(target).add(done);
            if (now >= warmupMillis) {
                double response = done - now + latencyMillis;
                sum += response;
                recorded++;
                if (response <= limitMillis) {
                    within++;
                }
            }
        }
        return new Outcome(sum / recorded, within / (double) recorded);
    }

    /**
     * Where one server's queue length (requests running and waiting) is sampled: {@code count}
     * points {@code stepMillis} apart from {@code startMillis} on, in simulated milliseconds since
     * the first request's draw.
     *
     * @param startMillis the first point
     * @param stepMillis the spacing
     * @param count the points
     */
    record Grid(double startMillis, double stepMillis, int count) {
        Grid {
            if (!(startMillis >= 0) || !(stepMillis > 0) || count < 0) {
                throw new IllegalArgumentException("grid: " + startMillis + " + i × " + stepMillis + ", " + count
                        + " points (expected: start >= 0, step > 0, count >= 0)");
            }
        }

        /** Point {@code i}. */
        double at(int i) {
            return startMillis + i * stepMillis;
        }
    }

    /**
     * The queue length of a one-server model (its {@code workers} workers, a FIFO queue) under
     * {@code workload} at {@code load} of its capacity, sampled on {@code grid}, the server starting
     * empty: the exact queue without any overhead behind {@link LoadIndexExperiment}'s node. With
     * the seed of a measured run, the requests are the very same as the run's ({@link OpenLoopRun}
     * draws the interval, then the service time).
     */
    int[] queueLengths(Workload workload, double load, long seed, Grid grid) {
        if (servers != 1) {
            throw new IllegalStateException("servers: " + servers + " (expected: 1 for a queue-length series)");
        }
        Random requests = new Random(seed);
        double perSecond = workload.rate(load, 1, workers);
        double[] free = new double[workers];
        PriorityQueue<Double> inSystem = new PriorityQueue<>();
        int[] samples = new int[grid.count()];
        int next = 0;
        double now = 0;
        while (next < samples.length) {
            now += workload.arrivalNanos(requests, perSecond) / 1e6;
            double service = workload.serviceMicros(requests) / 1e3;
            for (; next < samples.length && grid.at(next) < now; next++) {
                samples[next] = queueLength(inSystem, grid.at(next));
            }
            inSystem.add(serve(free, now, service));
        }
        return samples;
    }

    /**
     * Starts a request that arrived at {@code now} on the worker of {@code serverFree} (when each is
     * next free) that is free first, FIFO: requests start in arrival order. Returns when it is done.
     */
    private static double serve(double[] serverFree, double now, double service) {
        int worker = 0;
        for (int w = 1; w < serverFree.length; w++) {
            if (serverFree[w] < serverFree[worker]) {
                worker = w;
            }
        }
        double done = Math.max(now, serverFree[worker]) + service;
        serverFree[worker] = done;
        return done;
    }

    private int pick(PolicySetup setup, List<PriorityQueue<Double>> inSystem, double[] announced, double now,
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
    private static int queueLength(PriorityQueue<Double> inSystem, double time) {
        while (!inSystem.isEmpty() && inSystem.peek() <= time) {
            inSystem.poll();
        }
        return inSystem.size();
    }
}
