/**
 * The replicated-writes experiment ({@code ./neptune bench writes}, issue 12 section 3): level-2
 * writes through Neptune with 3 replicas, against the same service unreplicated and against Apache
 * Ratis with 3 peers, all in this JVM on 127.0.0.1.
 *
 * <p>Starting points: {@link io.neptune.benchmarks.writes.WritesExperiment}, and the systems it
 * measures behind {@link io.neptune.benchmarks.writes.WriteTarget}.
 */
@NullMarked
package io.neptune.benchmarks.writes;

import org.jspecify.annotations.NullMarked;
