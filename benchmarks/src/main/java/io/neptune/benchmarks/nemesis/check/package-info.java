/**
 * Checkers of nemesis histories ({@code io.neptune.benchmarks.nemesis.history}), one per property,
 * each polynomial and tested on hand-made histories with known anomalies. Each returns a
 * {@link io.neptune.benchmarks.nemesis.check.Verdict}: valid, invalid or unknown, the offending
 * operations, and measures for aggregating runs.
 * {@link io.neptune.benchmarks.nemesis.check.Checkers#checkAll} runs those that apply to what the
 * service promised; {@link io.neptune.benchmarks.nemesis.check.CheckHistory} re-checks a saved run.
 * How they work: {@code docs/RELIABILITY.md}.
 */
@NullMarked
package io.neptune.benchmarks.nemesis.check;

import org.jspecify.annotations.NullMarked;
