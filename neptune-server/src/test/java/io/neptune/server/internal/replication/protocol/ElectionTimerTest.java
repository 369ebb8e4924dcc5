package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class ElectionTimerTest {
    private static final long TIMEOUT = 1_000;
    private static final NodeId SELF = NodeId.of("b");
    private static final NodeId PRIMARY = NodeId.of("a");

    /** No jitter: the delays are exact. */
    private final ElectionTimer timer = new ElectionTimer(TIMEOUT, SELF, 2, bound -> 0);

    private static Replica replica(String node, int priority) {
        InetSocketAddress address = InetSocketAddress.createUnresolved("localhost", 1);
        return new Replica(NodeId.of(node), address, address, priority, ReplicaRole.SECONDARY, 0, 0);
    }

    @Test
    void hearingFromThePrimaryPutsTheElectionATimeoutAwayPlusAStepPerLiveReplicaOfHigherPriority() {
        List<Replica> view = List.of(replica("a", 3), replica("b", 2), replica("c", 1));
        timer.heard(10_000, PRIMARY, view);
        assertThat(timer.due(10_000 + TIMEOUT + TIMEOUT / 2 - 1)).isFalse();
        assertThat(timer.due(10_000 + TIMEOUT + TIMEOUT / 2)).as("one step for a, of higher priority").isTrue();
        assertThat(timer.sinceContact(10_300)).isEqualTo(300);
        assertThat(timer.sincePrimary(10_300)).isEqualTo(300);
    }

    @Test
    void aVoteGrantedRestartsTheTimerAndCountsAsContactButNotAsHearingAPrimary() {
        timer.heardFromNobody(5_000, List.of());
        assertThat(timer.due(5_000 + TIMEOUT - 1)).isFalse();
        assertThat(timer.due(5_000 + TIMEOUT)).isTrue();
        assertThat(timer.sinceContact(5_100)).isEqualTo(100);
        assertThat(timer.sincePrimary(5_100)).as("it never followed a primary").isEqualTo(-1);
    }

    @Test
    void aPrimaryThatLeftTheYellowPageIsReplacedSoonerButNeverLater() {
        timer.heard(0, PRIMARY, List.of());
        timer.hurry(100, List.of()); // the fast delay (50 ms) is longer than this timer's timeout
        assertThat(timer.due(TIMEOUT - 1)).isFalse();
        assertThat(timer.due(TIMEOUT)).as("never later than the timeout it had").isTrue();

        ElectionTimer slow = new ElectionTimer(1_000_000_000L, SELF, 2, bound -> 0);
        slow.heard(0, PRIMARY, List.of());
        slow.hurry(100, List.of());
        assertThat(slow.due(100 + 50_000_000)).as("50 ms, not a whole second").isTrue();
    }

    @Test
    void aFailOverIsTimedFromTheLastWordOfThePrimaryEvenWhenThatWasThisReplica() {
        timer.heard(1_000, SELF, List.of());
        assertThat(timer.sincePrimary(1_500)).as("hearing itself is not following a primary").isEqualTo(-1);
        timer.steppedDown(2_000, List.of());
        assertThat(timer.sincePrimary(2_700)).isEqualTo(700);
        assertThat(timer.due(2_000 + TIMEOUT)).isTrue();
    }

    @Test
    void aPrimaryHeardWithinATimeoutAndStillInTheYellowPageWasHeardLately() {
        List<Replica> view = List.of(replica("a", 1), replica("b", 2));
        timer.heard(10_000, PRIMARY, view);

        assertThat(timer.heardLately(10_300, PRIMARY, view))
                .isEqualTo(new Election.Heard("a", 0)); // 300 ns ago, in whole milliseconds
        assertThat(timer.heardLately(10_000 + TIMEOUT - 1, PRIMARY, view)).isNotNull();
        assertThat(timer.heardLately(10_000 + TIMEOUT, PRIMARY, view)).as("a whole timeout ago").isNull();
    }

    @Test
    void aPrimaryThatLeftTheYellowPageOrNoPrimaryAtAllWasNotHeardLately() {
        timer.heard(0, PRIMARY, List.of());

        assertThat(timer.heardLately(10, PRIMARY, List.of(replica("b", 2)))).as("a left the yellow page").isNull();
        assertThat(timer.heardLately(10, null, List.of(replica("a", 1)))).as("no primary of this epoch").isNull();
    }

    @Test
    void aVoteGrantedLatelyCountsAsContactForThePrimaryOfTheEpoch() {
        long timeout = 2_000_000_000L;
        ElectionTimer slow = new ElectionTimer(timeout, SELF, 2, bound -> 0);
        List<Replica> view = List.of(replica("a", 1));
        slow.heardFromNobody(0, view);

        assertThat(slow.heardLately(1_500_000_000L, PRIMARY, view)).isEqualTo(new Election.Heard("a", 1_500));
    }
}
