/**
 * Storage for service authors: an embedded H2 database per service that records, in the same
 * transaction as each replicated write, the write's LSN, so the {@link io.neptune.core.Check}
 * callback can answer from it after a crash (DESIGN §6.5).
 *
 * <p>Starting points: {@link io.neptune.server.storage.PartitionDatabase},
 * {@link io.neptune.server.storage.SqlWork}, {@link io.neptune.server.storage.StorageException}.
 */
@NullMarked
package io.neptune.server.storage;

import org.jspecify.annotations.NullMarked;
