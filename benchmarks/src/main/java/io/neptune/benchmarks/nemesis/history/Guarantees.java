package io.neptune.benchmarks.nemesis.history;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;

/**
 * What the service under test promised during a run, which decides the checks that apply to its
 * history: every level must lose no acknowledged write, apply none twice, read nothing that was
 * never written or that failed, and heal to identical replicas; levels 2 and 3 order writes, so
 * every two reads of a key are prefix-comparable; level 3 adds the session guarantees (monotonic
 * reads and versions, read-your-writes) and the staleness bound. Saved as {@code guarantees.json}
 * in a run directory. Immutable.
 *
 * @param level the service's consistency level
 * @param mode its fail-over mode (printed with the verdicts; it changes what the service promises
 *     under partitions, not which checks run: a fail-stop run is checked the same way and its
 *     losses are reported)
 * @param stalenessMillis level 3's staleness bound x ({@code @NeptuneService(stalenessMillis)}); 0
 *     below level 3
 * @param slackMillis what a read may lag beyond x because versions travel in announcements; see
 *     {@link #DEFAULT_SLACK_MILLIS}
 * @param linearizableReads whether a read must see every write completed before it was invoked,
 *     also by other sessions (no Neptune level promises it; for services that read from the primary)
 */
public record Guarantees(ConsistencyLevel level, FailoverMode mode, long stalenessMillis, long slackMillis,
        boolean linearizableReads) {
    /**
     * Default for {@link #slackMillis()}: 1.5 × the default announce interval of 1 s (announcements
     * are jittered ±50%, and a client picks a replica by the last one it received) plus the 100 ms
     * at which the primary samples its version.
     */
    public static final long DEFAULT_SLACK_MILLIS = 1_600;

    public Guarantees {
        requireNonNull(level, "level");
        requireNonNull(mode, "mode");
        if (stalenessMillis < 0) {
            throw new IllegalArgumentException("stalenessMillis: " + stalenessMillis + " (expected: >= 0)");
        }
        if (slackMillis < 0) {
            throw new IllegalArgumentException("slackMillis: " + slackMillis + " (expected: >= 0)");
        }
    }

    /** The guarantees of a level-1 or level-2 service, or of level 3 with the default bound of 1 s. */
    public static Guarantees of(ConsistencyLevel level, FailoverMode mode) {
        return new Guarantees(level, mode, level == ConsistencyLevel.LEVEL_3 ? 1_000 : 0, DEFAULT_SLACK_MILLIS,
                false);
    }

    /** The guarantees of a level-3 service with staleness bound {@code stalenessMillis}. */
    public static Guarantees level3(FailoverMode mode, long stalenessMillis) {
        return new Guarantees(ConsistencyLevel.LEVEL_3, mode, stalenessMillis, DEFAULT_SLACK_MILLIS, false);
    }

    /** These guarantees with {@link #slackMillis()} replaced. */
    public Guarantees withSlackMillis(long slackMillis) {
        return new Guarantees(level, mode, stalenessMillis, slackMillis, linearizableReads);
    }

    /** These guarantees with {@link #linearizableReads()} replaced. */
    public Guarantees withLinearizableReads(boolean linearizableReads) {
        return new Guarantees(level, mode, stalenessMillis, slackMillis, linearizableReads);
    }

    /** Whether writes to a partition are ordered (levels 2 and 3): each key's list has one order. */
    public boolean orderedWrites() {
        return level != ConsistencyLevel.LEVEL_1;
    }

    /** Whether sessions read monotonically and read their writes, within a staleness bound (level 3). */
    public boolean sessions() {
        return level == ConsistencyLevel.LEVEL_3;
    }

    @Override
    public String toString() {
        String levelName = "level " + (level.ordinal() + 1);
        return switch (level) {
            case LEVEL_1 -> levelName;
            case LEVEL_2 -> levelName + ", " + mode.configName();
            case LEVEL_3 -> levelName + ", " + mode.configName() + ", staleness bound " + stalenessMillis + " ms (+ "
                    + slackMillis + " ms slack)";
        } + (linearizableReads ? ", linearizable reads" : "");
    }
}
