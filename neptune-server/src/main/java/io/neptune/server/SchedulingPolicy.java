package io.neptune.server;

import java.util.Locale;

/**
 * How a node picks the next queued request once every class has its guaranteed share
 * (dissertation Table 4.1; the priority is "the smaller the sooner").
 */
public enum SchedulingPolicy {
    /**
     * First come, first served across all classes, no guarantees, and no drops by yield: the baseline.
     * A request whose deadline (its class's D, or the call's if sooner) passed while it waited is
     * still answered DEADLINE_EXCEEDED without running when a worker takes it, as on a node without
     * classes.
     */
    FIFO,
    /** Earliest deadline first: the smallest deadline left. */
    EDF,
    /** Yield-inflated deadline: deadline left divided by the expected yield. */
    YID,
    /** Expected resource use divided by the expected yield: the most yield per unit of work. */
    GREEDY,
    /**
     * {@link #YID} while few requests are dropped, {@link #GREEDY} while more than the configured
     * fraction of arrivals (5%) were dropped within the window (30 s): YID avoids losses under
     * transient load, Greedy makes the most of sustained overload.
     */
    ADAPTIVE;

    /** The name in config files and on the command line: {@code fifo}, {@code edf}, ... */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
