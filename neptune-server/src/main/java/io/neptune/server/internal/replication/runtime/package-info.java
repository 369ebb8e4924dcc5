/**
 * The replication runtime (DESIGN §6, {@code docs/protocols/replication.md}): each partition's replica
 * for level-1 write-anywhere and level-2/3 primary-secondary replication, which feeds its inputs to
 * the pure state machines of {@code replication.protocol} and carries out what they return against
 * the REDO log, the peers and the partition's service, on the partition's {@link SerialExecutor};
 * recovery, snapshots, placement, and the internal peer protocol spoken over the node's request
 * connections. {@link ReplicationEngine}, the node's registry of replicas, is its one public class.
 * Internal.
 */
@NullMarked
package io.neptune.server.internal.replication.runtime;

import org.jspecify.annotations.NullMarked;
