/**
 * Replication (DESIGN §6, {@code docs/protocols/replication.md}): the per-partition state machines
 * for level-1 write-anywhere and level-2/3 primary-secondary replication, election, recovery, and
 * the internal peer protocol they speak over the node's request connections. Internal.
 */
@NullMarked
package io.neptune.server.internal.replication;

import org.jspecify.annotations.NullMarked;
