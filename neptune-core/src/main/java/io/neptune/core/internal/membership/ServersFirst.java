package io.neptune.core.internal.membership;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.AddressGenerator;
import org.jgroups.stack.MembershipChangePolicy;
import org.jgroups.util.FlagsUUID;

/**
 * JGroups' membership order with the server nodes ahead of the other members (clients' yellow pages,
 * admin tools), so a member that hosts nothing never coordinates while a server is in the group.
 *
 * <p>JGroups makes the first member of a view its coordinator. Its default policy appends joiners, so
 * a client alone in the group stays coordinator when servers join it; and after a merge it sorts the
 * subviews' members by address, so any member can end up first. In a StatefulSetIT run an admin tool
 * whose join timed out formed a group of its own, was merged back and coordinated: it had no physical
 * address for one client, which missed three views and dropped every node from its yellow page; and
 * the tool, which lives for seconds, leaves the group to elect a coordinator again when it exits.
 *
 * <p>This policy takes JGroups' default order and moves the servers ahead, keeping the order among the
 * servers and among the others: a join still appends, a merge still orders as JGroups does. A server is
 * a member whose address carries {@link #SERVER_FLAG} ({@link #serverAddresses()}); every other address,
 * a plain UUID included, counts as a non-server. Every member runs the policy, since whoever coordinates
 * computes the next view, a client coordinating before the first server arrives included.
 *
 * <p>Thread-safety: stateless; GMS calls it on its view-handling thread.
 */
final class ServersFirst implements MembershipChangePolicy {
    /** The flag of a server node's address; Neptune's stacks run no protocol that sets address flags. */
    static final short SERVER_FLAG = 1;

    private final MembershipChangePolicy jgroupsDefault = new GMS.DefaultMembershipPolicy();

    /**
     * Makes the addresses of a server node's channel: random UUIDs as JGroups makes them, with
     * {@link #SERVER_FLAG} set. JGroups sends an address with its type, and every member reads this one
     * ({@code FlagsUUID} is in JGroups' own registry of types); it equals a plain UUID with the same bits,
     * as the discovery files (which hold UUIDs as text) give it back.
     */
    static AddressGenerator serverAddresses() {
        return () -> {
            FlagsUUID address = FlagsUUID.randomUUID();
            return address.<FlagsUUID>setFlag(SERVER_FLAG);
        };
    }

    /** Whether {@code member}'s address says it is a server node. */
    static boolean isServer(Address member) {
        return member instanceof FlagsUUID flagged && flagged.isFlagSet(SERVER_FLAG);
    }

    @Override
    public List<Address> getNewMembership(Collection<Address> currentMembers, Collection<Address> joiners,
            Collection<Address> leavers, Collection<Address> suspects) {
        return serversFirst(jgroupsDefault.getNewMembership(currentMembers, joiners, leavers, suspects));
    }

    @Override
    public List<Address> getNewMembership(Collection<Collection<Address>> subviews) {
        return serversFirst(jgroupsDefault.getNewMembership(subviews));
    }

    /** {@code members} with the servers first, each part in its order in {@code members}. */
    static List<Address> serversFirst(List<Address> members) {
        List<Address> ordered = new ArrayList<>(members.size());
        for (Address member : members) {
            if (isServer(member)) {
                ordered.add(member);
            }
        }
        for (Address member : members) {
            if (!isServer(member)) {
                ordered.add(member);
            }
        }
        return ordered;
    }
}
