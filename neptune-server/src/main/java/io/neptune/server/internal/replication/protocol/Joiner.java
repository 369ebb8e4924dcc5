package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.protocol.Ready.AdoptEpoch;
import io.neptune.server.internal.replication.protocol.Ready.AppendBatch;
import io.neptune.server.internal.replication.protocol.Ready.Apply;
import io.neptune.server.internal.replication.protocol.Ready.ApplyToResume;
import io.neptune.server.internal.replication.protocol.Ready.AskJoin;
import io.neptune.server.internal.replication.protocol.Ready.Debug;
import io.neptune.server.internal.replication.protocol.Ready.Diverged;
import io.neptune.server.internal.replication.protocol.Ready.FollowPrimary;
import io.neptune.server.internal.replication.protocol.Ready.Info;
import io.neptune.server.internal.replication.protocol.Ready.JoinAgain;
import io.neptune.server.internal.replication.protocol.Ready.JoinUnderWay;
import io.neptune.server.internal.replication.protocol.Ready.Recover;
import io.neptune.server.internal.replication.protocol.Ready.Resume;
import io.neptune.server.internal.replication.protocol.Ready.Truncate;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of a recovering fail-stop replica that joins its primary (recovery phase 2,
 * {@code docs/protocols/replication.md}), as a state machine: each input (start, the primary's reply
 * or a failed call, the reply's records logged or failed, what the replica applied) returns a
 * {@link Ready} with what to do. A join attempt asks the primary with this log's end; the primary
 * answers with the LSN up to which this log is surely its own (the keep point) and a batch of
 * records after it. The joiner compares its record at the keep point with the primary's, drops a
 * run that differs (a dead primary's records under an epoch number its successor reused) or an
 * uncommitted tail the primary lacks, logs the records it lacks and, once the primary counts it in
 * sync and it applied what the primary committed, resumes as a secondary; else it joins again for
 * the next batch, or recovers and joins again later.
 *
 * <p>The attempt under way is an {@link Attempt}, which the replica keeps in its phase and passes
 * to every input: an input of another attempt (or none) is stale and ignored. It reads the replica
 * through a {@link View}: no I/O, no threads, no clock. Its driver ({@code Rejoin}) carries each
 * {@link Ready} out and feeds the answers back.
 *
 * <p>Not thread-safe: confined to its driver's executor.
 */
public final class Joiner {
    /** How many attempts this replica started; each one's {@link Attempt#number} is its number. */
    private long attempts;

    /**
     * One join exchange with {@code target}: {@code joined} once the primary's reply counted the
     * joiner among its in-sync secondaries (its {@code replicate} messages may arrive from then on),
     * {@code excluded} if the primary demoted the joiner meanwhile.
     */
    public record Attempt(long number, NodeId target, boolean joined, boolean excluded) {
        /** The primary whose join reply counted this replica in sync, the one whose {@code replicate} it takes, or null. */
        public @Nullable NodeId joinedTo() {
            return joined ? target : null;
        }

        /** This attempt after its primary demoted the joiner: it ends without resuming. */
        public Attempt exclude() {
            return new Attempt(number, target, joined, true);
        }

        private Attempt answered(boolean joinedNow) {
            return new Attempt(number, target, joinedNow, excluded);
        }
    }

    /**
     * The primary's acceptance of a join: this log is its own up to {@code keepUpTo}, where its record
     * is of {@code keepEpoch}, written by {@code keepOrigin} (empty or null: not named); {@code records}
     * follow it; {@code joined} if they reach the primary's log end, so that it counts the joiner in sync;
     * the primary's {@code epoch} and commit point {@code commitLsn}.
     */
    public record Reply(long epoch, long keepUpTo, long keepEpoch, @Nullable String keepOrigin, List<LogRecord> records,
            boolean joined, long commitLsn) {
        public Reply {
            records = List.copyOf(records);
        }
    }

    /** What the joiner's decisions read of its replica: its log, where each epoch starts in it, and what it applied. */
    public interface View {
        /** The epoch this replica last persisted (its current epoch). */
        long epoch();

        /** The LSN of the log's last record, 0 if it is empty. */
        long lastLsn();

        /** The epoch of the log's last record. */
        long lastEpoch();

        /** The LSN of the log's first record. */
        long startLsn();

        /** The LSN of the last write applied to the service. */
        long applied();

        /** The epoch of the record at {@code lsn}, from the log's boundary to its end. */
        long epochOf(long lsn);

        /** The primary that wrote the record at {@code lsn} (empty if it did not name itself). */
        String originOf(long lsn);

        /** The first LSN of {@code epoch} in this log, or {@code unknown} if it has none. */
        long epochStart(long epoch, long unknown);
    }

    /**
     * Starts a join attempt with {@code target}, the live primary, unless one is under way
     * ({@code current}): the replica asks it with its log end.
     */
    public Ready start(@Nullable Attempt current, NodeId target, View replica) {
        Ready ready = new Ready();
        if (current != null) {
            return ready; // the join under way goes on
        }
        Attempt attempt = new Attempt(++attempts, target, false, false);
        return ready.add(new JoinUnderWay(attempt))
                .add(new AskJoin(target, replica.lastLsn(), replica.lastEpoch(), attempt.number()));
    }

    /** The call of attempt {@code number} failed, or the primary refused the join ({@code why}): it recovers. */
    public Ready failed(@Nullable Attempt current, long number, String why) {
        Ready ready = new Ready();
        Attempt attempt = inAttempt(current, number);
        if (attempt == null) {
            return ready;
        }
        return ready.add(new Debug("join attempt " + number + " with " + attempt.target() + " failed: " + why))
                .add(new Recover(null));
    }

    /**
     * The primary accepted the join of attempt {@code number} with {@code reply}: this log becomes a
     * prefix of the primary's up to the keep point, and the records it lacks are logged. If a run of
     * records that are not the primary's was dropped, or this replica applied writes the primary does
     * not have (it diverged and needs to be rebuilt), the attempt ends here.
     */
    public Ready replied(@Nullable Attempt current, long number, Reply reply, View replica) {
        Ready ready = new Ready();
        Attempt attempt = inAttempt(current, number);
        if (attempt == null) {
            return ready;
        }
        if (attempt.excluded()) {
            return ready.add(new Recover(null)); // the primary demoted it meanwhile: the reply no longer holds
        }
        if (reply.epoch() > replica.epoch()) {
            ready.add(new AdoptEpoch(reply.epoch()));
        }
        long next = reconcile(attempt.target(), reply, replica, ready);
        if (next < 0) {
            return ready.add(new Recover(null));
        }
        // its replicate messages may now arrive before this replica is a secondary (the phase's joinedTo)
        ready.add(new FollowPrimary(attempt.target(), reply.commitLsn()))
                .add(new JoinUnderWay(attempt.answered(reply.joined())));
        List<LogRecord> records = new ArrayList<>();
        for (LogRecord record : reply.records()) {
            if (record.lsn() == next) { // only what extends this log
                records.add(record);
                next++;
            }
        }
        return ready.add(new AppendBatch(records, number));
    }

    /**
     * The records of attempt {@code number} are durable: a replica the primary counted in sync applies
     * up to {@code commitLsn} to resume ({@link #applied}); one it did not fetches the next batch while
     * this one is applied; one it demoted meanwhile recovers and joins again later. One that does not
     * resume still takes the primary's {@code replicate} while it recovers if the primary counted it in sync.
     */
    public Ready logged(@Nullable Attempt current, long number, long commitLsn) {
        Ready ready = new Ready();
        Attempt attempt = inAttempt(current, number);
        if (attempt == null) {
            return ready;
        }
        if (attempt.excluded() || !attempt.joined()) {
            ready.add(new Recover(attempt.joinedTo()));
            if (!attempt.excluded()) {
                ready.add(new JoinAgain(attempt.target())); // the next batch travels and is logged while this one is applied
            }
            return ready.add(new Apply(commitLsn));
        }
        return ready.add(new ApplyToResume(commitLsn, number));
    }

    /** Logging the records of attempt {@code number} failed ({@code why}): it recovers and joins again at the next tick. */
    public Ready logFailed(@Nullable Attempt current, long number, long commitLsn, String why) {
        Ready ready = new Ready();
        Attempt attempt = inAttempt(current, number);
        if (attempt == null) {
            return ready;
        }
        return ready.add(new Debug("join attempt " + number + " with " + attempt.target() + ": logging its records"
                + " failed: " + why)).add(new Recover(attempt.joinedTo())).add(new Apply(commitLsn));
    }

    /**
     * A joined replica of attempt {@code number} applied what its primary committed ({@code ok}), or a
     * write failed in storage at {@code failedAt}: it resumes as a secondary, or stays recovering.
     */
    public Ready applied(@Nullable Attempt current, long number, boolean ok, long failedAt) {
        Ready ready = new Ready();
        Attempt attempt = inAttempt(current, number);
        if (attempt == null) {
            return ready;
        }
        if (ok) {
            return ready.add(new Resume());
        }
        return ready.add(new Recover(attempt.joinedTo()))
                .add(new Debug("stays recovering: the write at LSN " + failedAt + " failed in storage"));
    }

    /**
     * {@code current}, the attempt under way, if an input of attempt {@code number} belongs to it; else
     * null: the replica left that attempt meanwhile (promoted, stepped down, in another attempt), so
     * the input is stale.
     */
    private static @Nullable Attempt inAttempt(@Nullable Attempt current, long number) {
        return current != null && current.number() == number ? current : null;
    }

    /**
     * Makes this log a prefix of {@code target}'s up to the keep point of {@code reply}: the LSN the
     * reply's first record to log must have, or -1 if this attempt ends here (a run that is not the
     * primary's was dropped, or the replica diverged).
     */
    private static long reconcile(NodeId target, Reply reply, View replica, Ready ready) {
        long keep = reply.keepUpTo();
        if (!sameRecordAt(keep, reply.keepEpoch(), reply.keepOrigin(), replica)) {
            // Same LSN, another write: a primary that died before anyone saw its epoch left records here under an
            // epoch number its successor reused. Drop that run of records and join again from before it.
            long mineEpoch = replica.epochOf(keep);
            String mineOrigin = replica.originOf(keep);
            long runStart = Math.max(replica.startLsn(), replica.epochStart(mineEpoch, keep));
            if (runStart - 1 < replica.applied()) {
                ready.add(new Diverged("[NEP-REPL-001] applied writes up to " + replica.applied() + ", but from LSN "
                        + runStart + " on this log differs from " + target + "'s (epoch " + mineEpoch + " by "
                        + mineOrigin + " here, epoch " + reply.keepEpoch() + " by " + reply.keepOrigin()
                        + " there); this replica diverged and needs to be rebuilt"));
                return -1;
            }
            ready.add(new Warn("records " + runStart + ".." + replica.lastLsn() + " (epoch " + mineEpoch + " by "
                    + mineOrigin + ") are not " + target + "'s (epoch " + reply.keepEpoch() + " by "
                    + reply.keepOrigin() + " at " + keep + "); truncating them and joining again"));
            ready.add(new Truncate(runStart - 1));
            return -1;
        }
        if (keep < replica.lastLsn()) {
            if (keep < replica.applied()) {
                ready.add(new Diverged("[NEP-REPL-001] applied writes up to " + replica.applied() + " that the"
                        + " primary's log does not have past " + keep + "; this replica diverged and needs to be"
                        + " rebuilt"));
                return -1;
            }
            ready.add(new Info("truncating uncommitted log tail " + (keep + 1) + ".." + replica.lastLsn()
                    + " (not in the primary's log)"));
            ready.add(new Truncate(keep));
            return keep + 1;
        }
        return replica.lastLsn() + 1;
    }

    /**
     * Whether this log's record {@code lsn} is the primary's (epoch {@code epoch}, written by primary
     * {@code origin}); trivially so for LSN 0, past this log's end, and for records logged before
     * primaries named themselves in them (empty origin).
     */
    private static boolean sameRecordAt(long lsn, long epoch, @Nullable String origin, View replica) {
        if (lsn < 1 || lsn > replica.lastLsn() || lsn < replica.startLsn() - 1) {
            return true;   // below the boundary: what it applied there is checked against the keep point next
        }
        if (replica.epochOf(lsn) != epoch) {
            return false;
        }
        String mine = replica.originOf(lsn);
        return origin == null || origin.isEmpty() || mine.isEmpty() || mine.equals(origin);
    }
}
