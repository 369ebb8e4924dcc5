/**
 * The nemesis bench: Jepsen-style fault injection against a real Neptune cluster. Node JVMs and the
 * workload client each run in their own Linux network namespace ({@link
 * io.neptune.server.NamespaceNetwork}, from the server's test kit); a seeded {@link
 * io.neptune.benchmarks.nemesis.FaultSchedule} partitions, pauses, kills and crashes them while
 * client processes append to and read lists of a {@link
 * io.neptune.benchmarks.nemesis.ListAppendService}, recording every invocation and completion. Run
 * it with {@code ./neptune bench nemesis}; docs/RELIABILITY.md explains the faults and the report.
 */
@NullMarked
package io.neptune.benchmarks.nemesis;

import org.jspecify.annotations.NullMarked;
