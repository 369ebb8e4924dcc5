package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.MembershipChangePolicy;
import org.jgroups.util.FlagsUUID;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/** The membership order of {@link ServersFirst}, on addresses alone: no channel is opened. */
class ServersFirstTest {
    private final ServersFirst policy = new ServersFirst();
    private final MembershipChangePolicy jgroupsDefault = new GMS.DefaultMembershipPolicy();
    private final Address s1 = server();
    private final Address s2 = server();
    private final Address c1 = UUID.randomUUID();
    private final Address c2 = UUID.randomUUID();
    private final Address c3 = UUID.randomUUID();

    @Test
    void aServerJoiningAGroupCoordinatedByAClientBecomesItsCoordinator() {
        assertThat(policy.getNewMembership(List.of(c1), List.of(s1), List.of(), List.of()))
                .containsExactly(s1, c1);
    }

    @Test
    void joinersAreAppendedBehindTheMembersOfTheirKind() {
        assertThat(policy.getNewMembership(List.of(s1, c1), List.of(c2, s2), List.of(), List.of()))
                .containsExactly(s1, s2, c1, c2);
    }

    @Test
    void aLeavingServerHandsTheGroupToTheNextServerBeforeAnyClient() {
        assertThat(policy.getNewMembership(List.of(s1, c1, s2, c2), List.of(), List.of(s1), List.of()))
                .containsExactly(s2, c1, c2);
        assertThat(policy.getNewMembership(List.of(s1, c1, s2), List.of(), List.of(), List.of(s1)))
                .containsExactly(s2, c1);
    }

    @Test
    void aMergePutsTheServersFirstWhateverTheSubviewsOrder() {
        List<List<Collection<Address>>> orders = List.of(
                List.of(List.of(c1, c2), List.of(s1, c3), List.of(s2)),
                List.of(List.of(s2), List.of(c1, c2), List.of(s1, c3)),
                List.of(List.of(c3, s1), List.of(c2, c1), List.of(s2)));
        for (List<Collection<Address>> subviews : orders) {
            List<Address> merged = policy.getNewMembership(subviews);
            assertThat(merged).as("merge of %s", subviews).hasSize(5);
            assertThat(merged.subList(0, 2)).as("merge of %s", subviews).containsExactlyInAnyOrder(s1, s2);
            List<Address> expected = new ArrayList<>(jgroupsDefault.getNewMembership(subviews));
            expected.sort((a, b) -> Boolean.compare(ServersFirst.isServer(b), ServersFirst.isServer(a)));
            assertThat(merged).as("JGroups' order within servers and within clients").isEqualTo(expected);
        }
    }

    @Test
    void withoutServersTheOrderIsJGroupsDefault() {
        List<Collection<Address>> subviews = List.of(List.of(c2, c1), List.of(c3));
        assertThat(policy.getNewMembership(subviews)).isEqualTo(jgroupsDefault.getNewMembership(subviews));
        assertThat(policy.getNewMembership(List.of(c2, c1), List.of(c3), List.of(), List.of(c2)))
                .isEqualTo(jgroupsDefault.getNewMembership(List.of(c2, c1), List.of(c3), List.of(), List.of(c2)))
                .containsExactly(c1, c3);
    }

    @Test
    void onlyAServerAddressCarriesTheServerFlag() {
        assertThat(ServersFirst.isServer(s1)).isTrue();
        assertThat(ServersFirst.isServer(c1)).isFalse();
        assertThat(ServersFirst.isServer(FlagsUUID.randomUUID())).isFalse();
        assertThat(s1).as("the same member as the plain UUID a discovery file gives back")
                .isEqualTo(UUID.fromString(((UUID) s1).toStringLong()));
    }

    private static Address server() {
        return ServersFirst.serverAddresses().generateAddress("server");
    }
}
