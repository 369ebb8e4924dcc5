/**
 * The pure decisions of replication ({@code docs/protocols/replication.md}), shared by the modes.
 * The leaders are state machines: {@link io.neptune.server.internal.replication.protocol.MajorityLeader}
 * (a {@code majority}-mode primary) and {@link io.neptune.server.internal.replication.protocol.InSyncLeader}
 * (a fail-stop primary) take an input (a write, a follower's
 * {@link io.neptune.server.internal.replication.protocol.Ack}, a tick, a force, told of their node
 * as a {@link io.neptune.server.internal.replication.protocol.Local}) and return a
 * {@link io.neptune.server.internal.replication.protocol.Ready}, the effects to carry out in order.
 * So are a {@code majority}-mode replica's candidacy
 * ({@link io.neptune.server.internal.replication.protocol.Candidacy}: pre-vote, the new epoch persisted,
 * vote), whose inputs (start, the epoch persisted, a voter's answer or its silence) return its effects,
 * a recovering fail-stop replica's join ({@link io.neptune.server.internal.replication.protocol.Joiner})
 * and a fail-stop replica's election
 * ({@link io.neptune.server.internal.replication.protocol.FailStopElection}).
 * Beside them the rules: who may lead and how far a majority has a log
 * ({@link io.neptune.server.internal.replication.protocol.Election}), a leader's view of its
 * followers with the rule that says what commits
 * ({@link io.neptune.server.internal.replication.protocol.LeaderProgress}), what a write whose
 * request id was seen before gets ({@link io.neptune.server.internal.replication.protocol.WriteDedup}),
 * a leader's writes waiting to commit with the requests waiting for them
 * ({@link io.neptune.server.internal.replication.protocol.CommitWaiters}), and when a follower stands
 * for election and how it answers a vote ({@link io.neptune.server.internal.replication.protocol.ElectionTimer},
 * {@link io.neptune.server.internal.replication.protocol.WakeGrace}, {@code Election.vote}), and whether a
 * primary still holds a majority ({@link io.neptune.server.internal.replication.protocol.MajorityLease}). No I/O,
 * no threads, no futures, no logging, no clock reads: time comes in as an argument and the log is read
 * through {@link io.neptune.server.internal.replication.protocol.LogView}. The
 * {@code replication.runtime} package around it does the sending, persisting and answering; {@code ProtocolPurityTest} keeps this package
 * pure. Internal.
 */
@NullMarked
package io.neptune.server.internal.replication.protocol;

import org.jspecify.annotations.NullMarked;
