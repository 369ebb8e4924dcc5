/**
 * The generated tables of {@code docs/PERFORMANCE.md}: for every figure of the dissertation that a
 * bench reproduces (and the other rows of the Summary), the dissertation's claim and number as data,
 * "ours" computed from the committed reports under {@code docs/benchmarks/}, and whether they agree,
 * computed with the row's tolerance. {@code ./neptune bench report} rewrites the tables between
 * their marker comments and leaves the rest of the file alone.
 *
 * <p>Starting points: {@link io.neptune.benchmarks.report.PerformanceReport} (the command),
 * {@link io.neptune.benchmarks.report.Claim} (a dissertation claim and its tolerance), and the rows
 * per chapter in {@link io.neptune.benchmarks.report.ChapterThreeRows} and its siblings.
 */
@NullMarked
package io.neptune.benchmarks.report;

import org.jspecify.annotations.NullMarked;
