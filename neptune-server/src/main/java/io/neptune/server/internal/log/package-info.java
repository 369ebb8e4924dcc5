/**
 * The per-partition REDO log (DESIGN §6.5): an append-only file of CRC-framed write records with a
 * small atomically replaced meta file for the persisted epoch and the committed LSN, a configurable
 * fsync policy with group commit, recovery that truncates a torn or corrupt tail instead of
 * replaying it, and in-memory indexes from LSN to file offset and from request id to LSN. The
 * replication engine appends to it, reads from it to propagate and catch up, and truncates a
 * deposed primary's divergent suffix. {@link io.neptune.server.internal.log.Log} is the contract the
 * replication code needs; {@link io.neptune.server.internal.log.RedoLog} keeps it in files, and the
 * tests have an in-memory one. Internal: no compatibility promise.
 */
@NullMarked
package io.neptune.server.internal.log;

import org.jspecify.annotations.NullMarked;
