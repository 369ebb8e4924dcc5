package io.neptune.core.internal.membership;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jgroups.Address;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.stack.IpAddress;

/**
 * JGroups' {@link FD_SOCK2} that waits a moment for the address of a member it is to watch, instead
 * of suspecting the member at once because the transport does not know where it is yet.
 *
 * <p>A joiner tells the cluster its address in a discovery response sent just before its JOIN
 * request; the coordinator handles the two on different threads. On a loaded machine it took the
 * joiner in first, FD_SOCK2 (watching its new neighbour at the view change) found no address and
 * suspected it, VERIFY_SUSPECT2's question could not be sent either, and half a second later the
 * coordinator threw the live joiner out. In a CI run that exclusion was followed by a merge after
 * which one node went unheard by an observer for a minute. Here FD_SOCK2 waits up to
 * {@value #ADDRESS_WAIT_MILLIS} ms for the address (the response is usually a few milliseconds
 * behind) on the view-change thread, where FD_SOCK2 already waits for its connection to the
 * neighbour; a member whose address never comes is suspected then, as before.
 *
 * <p>The cost: that thread delivers the new view, so every later message of the view's sender waits
 * too. In a CI run (ExactlyOnceIT) a non-coordinator never learned a restarted member's address,
 * waited the full time (then 3 s), and heard nothing from the coordinator meanwhile, which dropped the
 * coordinator from its yellow page for a moment (the test's 2 s expiry; the default is 5 s). So the
 * wait is 1.5 s: a response a few milliseconds behind its JOIN, or hundreds on a loaded machine,
 * still arrives in it, and it stays under the shortest expiry the tests use. Asking the discovery
 * protocol for the address during the wait (as {@code TP.fetchPhysicalAddrs} does) did not find the
 * joiner's address in {@code LateJoinerAddressTest} and was left out.
 *
 * <p>Thread-safety: as {@link FD_SOCK2}.
 */
public final class PatientFdSock extends FD_SOCK2 {
    /** This protocol's id in JGroups' registry (ids below 1024 are JGroups' own; 1801 is AtomicFilePing). */
    static final short ID = 1802;
    /** How long a member's unknown address is waited for before the member is suspected. */
    static final long ADDRESS_WAIT_MILLIS = 1_500;

    static {
        ClassConfigurator.addProtocol(ID, PatientFdSock.class);
    }

    @Override
    protected List<IpAddress> getPhysicalAddresses(Address member) {
        List<IpAddress> addresses = super.getPhysicalAddresses(member);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ADDRESS_WAIT_MILLIS);
        while (addresses.isEmpty() && System.nanoTime() - deadline < 0 && !shutting_down) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            addresses = super.getPhysicalAddresses(member);
        }
        if (addresses.isEmpty()) {
            log.warn("%s: no address for %s after %d ms: suspecting it", local_addr, member, ADDRESS_WAIT_MILLIS);
        }
        return addresses;
    }
}
