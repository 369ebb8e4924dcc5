package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.RedoLog;
import io.neptune.server.internal.replication.runtime.Membership.Config;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Membership}: which configuration is in force, and how the {@code members} file follows the log. */
class MembershipTest {
    private static final NodeId A = NodeId.of("a");

    @TempDir
    Path dir;

    private static Config config(long lsn, long epoch, String... voters) {
        return new Config(lsn, epoch, new TreeSet<>(List.of(voters)));
    }

    private static void append(RedoLog log, long epoch, RecordKind kind) {
        log.append(new LogRecord(log.lastLsn() + 1, epoch, kind, RequestId.NONE, "a", 0, "", new byte[0])).join();
    }

    @Test
    void aConfigurationTheLogDoesNotHoldIsDroppedAndTheOneBeforeAppliesAgain() {
        try (RedoLog log = RedoLog.open(dir, FsyncPolicy.GROUP)) {
            Membership m = new Membership("p", dir, A, 3, false);
            assertThat(m.explicit()).isFalse();
            assertThat(m.counts(NodeId.of("anyone"))).isTrue();
            append(log, 1, RecordKind.NOOP);
            m.incoming(List.of(config(2, 1, "a", "b", "c")));   // written before it reaches the log
            log.append(config(2, 1, "a", "b", "c").record(A)).join();
            m.reconcile(log);
            m.incoming(List.of(config(3, 1, "a", "b", "c", "d")));   // a crash before this one reached the log
            assertThat(m.quorum()).isEqualTo(3);

            Membership restarted = new Membership("p", dir, A, 3, false);
            restarted.reconcile(log);
            assertThat(restarted.latest()).isEqualTo(config(2, 1, "a", "b", "c"));
            assertThat(restarted.quorum()).isEqualTo(2);
            assertThat(restarted.counts(NodeId.of("d"))).isFalse();

            // the log's record 2 is replaced by another primary's: the replica set is implicit again
            log.truncateAfter(1);
            append(log, 2, RecordKind.NOOP);
            restarted.reconcile(log);
            assertThat(restarted.explicit()).isFalse();
            assertThat(new Membership("p", dir, A, 3, false).explicit()).as("the file is gone").isFalse();
        }
    }

    @Test
    void aLearnerCountsForNothingUntilAConfigurationNamesItAndStaysOneAcrossARestart() {
        Membership learner = new Membership("p", dir, A, 3, true);
        assertThat(learner.explicit()).isTrue();
        assertThat(learner.counts(A)).isFalse();
        assertThat(learner.quorum()).isEqualTo(Integer.MAX_VALUE);
        assertThat(new Membership("p", dir, A, 3, false).counts(A)).as("after a restart").isFalse();
        learner.logging(config(7, 2, "a", "b", "c"));
        assertThat(learner.counts(A)).isTrue();
    }

    @Test
    void aSnapshotBringsTheConfigurationInForceAtItsBoundary() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("source"));   // the log's directory, in a replica
        java.nio.file.Files.createDirectories(dir.resolve("stale"));
        Membership source = new Membership("p", dir.resolve("source"), A, 3, false);
        source.logging(config(5, 1, "a", "b", "c"));
        source.logging(config(9, 1, "a", "b", "c", "d"));
        assertThat(source.at(4)).isNull();
        assertThat(source.at(8)).isEqualTo(config(5, 1, "a", "b", "c"));
        assertThat(source.at(12)).isEqualTo(config(9, 1, "a", "b", "c", "d"));

        Membership stale = new Membership("p", dir.resolve("stale"), NodeId.of("e"), 3, false);
        stale.logging(config(6, 1, "a", "b", "e"));   // logged once, never committed, overwritten since
        stale.installed(Config.parse(source.at(12).encode()));
        assertThat(stale.latest().voters()).isEqualTo(Set.of("a", "b", "c", "d"));
        assertThat(new Membership("p", dir.resolve("stale"), NodeId.of("e"), 3, false).latest())
                .isEqualTo(config(9, 1, "a", "b", "c", "d"));
    }
}
