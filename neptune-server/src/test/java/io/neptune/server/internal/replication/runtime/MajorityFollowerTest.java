package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a {@code majority}-mode follower serves reads (SECONDARY) rather than RECOVERING: its
 * applied state caught up with the primary's commit point once, and has not fallen far behind it
 * since. Each write takes 3 ms of the replica's clock, so a 5 ms slice applies three; the partition's
 * executor runs one task at a time, by hand.
 */
class MajorityFollowerTest {
    private static final long WRITE_NANOS = TimeUnit.MILLISECONDS.toNanos(3);

    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private @Nullable TimedWrites writes;
    /** Whether the follower served after each task, in order. */
    private final List<Boolean> served = new ArrayList<>();

    /**
     * Under a steady load the commit point always runs a message ahead of the slice that applies it.
     * A follower whose slice ended a few writes short of it flapped to RECOVERING and back, a role
     * change announced to every node each time (RollingRestartIT's logs: every 100 ms on each node).
     */
    @Test
    void aFollowerThatCaughtUpKeepsServingWhileItAppliesTheNextFewWritesOverSeveralSlices(@TempDir Path dir) {
        MajorityFollower follower = follower(dir);
        take(follower, 1, 2);
        assertThat(follower.matched()).as("caught up with the primary's commit point").isTrue();
        served.clear();

        take(follower, 3, 12);

        assertThat(served).as("served after each task while applying 10 writes three at a time").containsOnly(true)
                .hasSizeGreaterThan(3);
    }

    @Test
    void aFollowerThatNeverCaughtUpServesOnlyOnceItHas(@TempDir Path dir) {
        MajorityFollower follower = follower(dir);

        take(follower, 1, 12);

        assertThat(served).as("served after each task while applying its first 12 writes").startsWith(false)
                .endsWith(true);
    }

    /**
     * A replica that restarts serves until the primary first speaks (it applied all it knew was
     * committed); catching up from far behind in batches smaller than the backlog allowance, it must
     * not keep serving: the allowance counts from the primary's commit point, not from what reached
     * its log (a bench run found a catching-up replica announced SECONDARY throughout).
     */
    @Test
    void aFollowerFarBehindThePrimarysCommitPointStopsServingWhileBatchesOfItArrive(@TempDir Path dir) {
        MajorityFollower follower = follower(dir);

        take(follower, 1, 12, 1000);

        assertThat(served).as("served after each task while taking the first 12 of 1000 committed writes")
                .endsWith(false);
    }

    private MajorityFollower follower(Path dir) {
        writes = new TimedWrites(dir, WRITE_NANOS, WRITE_NANOS, tasks::add);
        Membership membership = new Membership("svc#0", dir, NodeId.of("n1"), 3, false);
        return new MajorityFollower(writes.core, membership, 0, MajorityPhase.Follower::new);
    }

    /**
     * The primary's {@code replicate} of writes {@code from}..{@code to}, all committed: the follower
     * takes it, its log forces the records, and every task that makes runs.
     */
    private void take(MajorityFollower follower, long from, long to) {
        take(follower, from, to, to);
    }

    /** Like {@link #take(MajorityFollower, long, long)}, the primary's commit point at {@code commit}. */
    private void take(MajorityFollower follower, long from, long to, long commit) {
        List<Entry> entries = LongStream.rangeClosed(from, to).mapToObj(lsn -> Entry.of(TimedWrites.write(lsn)))
                .toList();
        Replicate m = new Replicate("svc", 0, "n2", 1, commit, entries, from - 1, from == 1 ? 0 : 1, null);
        follower.take(m, 1, reply -> { }, () -> {
            throw new AssertionError("diverged");
        });
        requireNonNull(writes).log.force();
        runTasks(follower);
    }

    private void runTasks(MajorityFollower follower) {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            task.run();
            served.add(follower.matched());
        }
    }
}
