/**
 * The pure decisions of replication ({@code docs/protocols/replication.md}), shared by the modes:
 * who may lead and how far a majority has a log ({@link io.neptune.server.internal.replication.protocol.Election}),
 * a leader's view of its followers with the rule that says what commits
 * ({@link io.neptune.server.internal.replication.protocol.LeaderProgress}), what a write whose
 * request id was seen before gets ({@link io.neptune.server.internal.replication.protocol.WriteDedup}),
 * a leader's writes waiting to commit with the requests waiting for them
 * ({@link io.neptune.server.internal.replication.protocol.CommitWaiters}), and when a follower stands
 * for election and how it weighs a vote ({@link io.neptune.server.internal.replication.protocol.ElectionTimer},
 * {@link io.neptune.server.internal.replication.protocol.WakeGrace}, {@code Election.voteRefusal}). No I/O, no threads, no
 * futures, no logging, no clock reads: time comes in as an argument. The replication package does
 * the sending, persisting and answering, and asks these classes what to do; {@code ProtocolPurityTest}
 * keeps this package pure. Internal.
 */
@NullMarked
package io.neptune.server.internal.replication.protocol;

import org.jspecify.annotations.NullMarked;
