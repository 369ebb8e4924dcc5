package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Closed;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Electing;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.HandingOver;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Joining;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Kind;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Primary;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Recovering;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Secondary;
import io.neptune.server.internal.replication.protocol.FailStopElection.Round;
import io.neptune.server.internal.replication.protocol.Joiner;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The fail-stop phases on their own ({@link PrimaryBackupPhase}): the transition table drawn in
 * {@link PrimaryBackupReplica}'s javadoc, the role each phase announces, and the data an operation
 * under way keeps in its phase. {@link PrimaryBackupPhaseTest} drives the transitions in a cluster.
 */
class PrimaryBackupPhaseTableTest {
    private static final NodeId A = NodeId.of("a");

    private static Set<Kind> reachableFrom(Kind from) {
        Set<Kind> to = EnumSet.noneOf(Kind.class);
        for (Kind next : Kind.values()) {
            if (next.allowedFrom(from)) {
                to.add(next);
            }
        }
        return to;
    }

    @Test
    void theTransitionTableIsTheOneInTheJavadoc() {
        assertThat(reachableFrom(Kind.RECOVERING)).containsExactlyInAnyOrder(Kind.RECOVERING, Kind.JOINING,
                Kind.ELECTING, Kind.PRIMARY, Kind.CLOSED);
        assertThat(reachableFrom(Kind.JOINING)).containsExactlyInAnyOrder(Kind.JOINING, Kind.SECONDARY,
                Kind.RECOVERING, Kind.PRIMARY, Kind.CLOSED);
        assertThat(reachableFrom(Kind.SECONDARY)).containsExactlyInAnyOrder(Kind.SECONDARY, Kind.ELECTING,
                Kind.RECOVERING, Kind.PRIMARY, Kind.CLOSED);
        assertThat(reachableFrom(Kind.HANDING_OVER)).containsExactlyInAnyOrder(Kind.HANDING_OVER, Kind.SECONDARY,
                Kind.RECOVERING, Kind.PRIMARY, Kind.CLOSED);
        assertThat(reachableFrom(Kind.ELECTING)).containsExactlyInAnyOrder(Kind.ELECTING, Kind.PRIMARY,
                Kind.SECONDARY, Kind.RECOVERING, Kind.JOINING, Kind.CLOSED);
        assertThat(reachableFrom(Kind.PRIMARY)).containsExactlyInAnyOrder(Kind.PRIMARY, Kind.HANDING_OVER,
                Kind.RECOVERING, Kind.CLOSED);
        assertThat(reachableFrom(Kind.CLOSED)).containsExactly(Kind.CLOSED);
    }

    @Test
    void eachPhaseAnnouncesItsRoleAndAnElectionTheRoleItStartedFrom() {
        assertThat(new Recovering(null).role()).isEqualTo(ReplicaRole.RECOVERING);
        assertThat(new Joining(new Joiner.Attempt(1, A, false, false)).role()).isEqualTo(ReplicaRole.RECOVERING);
        assertThat(new Secondary().role()).isEqualTo(ReplicaRole.SECONDARY);
        assertThat(new HandingOver(A, 0).role()).isEqualTo(ReplicaRole.SECONDARY);
        assertThat(new Primary(null, false).role()).isEqualTo(ReplicaRole.PRIMARY);
        assertThat(new Closed().role()).isEqualTo(ReplicaRole.RECOVERING);

        Electing primaryLost = new Electing(new Secondary(), new Round(1, 1, false));
        assertThat(primaryLost.role()).isEqualTo(ReplicaRole.SECONDARY);
        assertThat(primaryLost.catastrophic()).isFalse();
        Electing allBack = new Electing(new Recovering(null), new Round(2, 1, true));
        assertThat(allBack.role()).isEqualTo(ReplicaRole.RECOVERING);
        assertThat(allBack.catastrophic()).isTrue();
    }

    @Test
    void anElectionStartsFromASecondaryOrARecoveringReplicaOnly() {
        assertThatThrownBy(() -> new Electing(new Primary(null, false), new Round(1, 1, false)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Electing(new Electing(new Secondary(), new Round(1, 1, false)),
                new Round(2, 1, false))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Electing(new Secondary(), new Round(1, 1, true)))
                .as("a catastrophic round starts from a recovering replica only")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRecoveringReplicaTakesReplicateFromThePrimaryItsJoinReplyCountedItInSyncWith() {
        assertThat(new Joining(new Joiner.Attempt(1, A, false, false)).joinedTo()).as("before the join reply").isNull();
        assertThat(new Joining(new Joiner.Attempt(1, A, true, false)).joinedTo()).isEqualTo(A);
        assertThat(new Joining(new Joiner.Attempt(1, A, true, true)).joinedTo()).as("excluded meanwhile").isEqualTo(A);

        assertThat(new Recovering(A).joinedTo()).isEqualTo(A);
        assertThat(new Electing(new Recovering(A), new Round(1, 1, true)).joinedTo())
                .as("a catastrophic election keeps it").isEqualTo(A);
        assertThat(new Recovering(null).joinedTo()).isNull();
    }

    @Test
    void aHandingOverPrimaryClaimsTheRoleUntilItsDeadlineEvenAcrossTheNanoTimeWrap() {
        HandingOver handingOver = new HandingOver(A, 1_000);
        assertThat(handingOver.claimsAt(999)).isTrue();
        assertThat(handingOver.claimsAt(1_000)).isFalse();

        HandingOver acrossTheWrap = new HandingOver(A, Long.MIN_VALUE + 10);
        assertThat(acrossTheWrap.claimsAt(Long.MAX_VALUE - 10)).isTrue();
        assertThat(acrossTheWrap.claimsAt(Long.MIN_VALUE + 10)).isFalse();
    }

    @Test
    void aPrimaryWithoutAnOperatorsHandoverHandsOffToNoOne() {
        assertThat(new Primary(null, true).handingOffTo()).isNull();
    }
}
