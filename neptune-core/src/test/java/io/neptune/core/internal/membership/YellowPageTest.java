package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The yellow page's soft state on a fake clock: updates, staleness, expiry, removal and exclusion. */
class YellowPageTest {
    private static final Duration EXPIRY = Duration.ofSeconds(5);
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final YellowPage page = new YellowPage(NodeId.of("self"), EXPIRY, nanos::get);

    /** Node {@code node} hosting partitions {@code hosted} of "echo" (4 partitions) with load 7. */
    private static Announcement announce(NodeId node, long incarnation, long sequence, int... hosted) {
        int port = 10_000 + node.value().charAt(0);
        List<Announcement.ReplicaState> replicas = IntStream.of(hosted)
                .mapToObj(p -> new Announcement.ReplicaState(p, 3, ReplicaRole.SECONDARY, 40 + p))
                .toList();
        return new Announcement(node.value(), "127.0.0.1", port, port + 1, 4242, incarnation, sequence, 7,
                List.of(new Announcement.HostedService("echo", 4, 7, replicas)));
    }

    private List<NodeId> nodesOf(int partition) {
        return page.replicas("echo", partition).stream().map(Replica::node).toList();
    }

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    @Test
    void emptyPageKnowsNothing() {
        assertThat(page.replicas("echo", 0)).isEmpty();
        assertThat(page.partitions("echo")).isEqualTo(OptionalInt.empty());
        assertThat(page.announcements()).isEmpty();
        assertThat(page.contains(A)).isFalse();
        assertThat(page.expire()).isZero();
    }

    @Test
    void updateThenLookup() {
        page.update(announce(A, 1, 1, 0, 2));

        List<Replica> replicas = page.replicas("echo", 2);
        assertThat(replicas).hasSize(1);
        Replica replica = replicas.get(0);
        assertThat(replica.node()).isEqualTo(A);
        assertThat(replica.requestAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 10_000 + 'a'));
        assertThat(replica.pollAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 10_000 + 'a' + 1));
        assertThat(replica.priority()).isEqualTo(3);
        assertThat(replica.role()).isEqualTo(ReplicaRole.SECONDARY);
        assertThat(replica.version()).isEqualTo(42);
        assertThat(replica.load()).isEqualTo(7);

        assertThat(nodesOf(0)).containsExactly(A);
        assertThat(nodesOf(1)).isEmpty();
        assertThat(nodesOf(3)).isEmpty();
        assertThat(page.replicas("echo", -1)).isEmpty();
        assertThat(page.replicas("echo", 4)).isEmpty();
        assertThat(page.replicas("other", 0)).isEmpty();
        assertThat(page.contains(A)).isTrue();
        assertThat(page.announcement(A)).hasValueSatisfying(a -> assertThat(a.sequence()).isEqualTo(1));
        assertThat(page.announcement(B)).isEmpty();
    }

    @Test
    void replicasOfSeveralNodesAreListedTogether() {
        page.update(announce(A, 1, 1, 0, 1));
        page.update(announce(B, 1, 1, 1, 2));

        assertThat(nodesOf(0)).containsExactly(A);
        assertThat(nodesOf(1)).containsExactlyInAnyOrder(A, B);
        assertThat(nodesOf(2)).containsExactly(B);
        assertThat(page.announcements()).extracting(Announcement::node).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void newerAnnouncementReplacesTheOldOne() {
        page.update(announce(A, 1, 1, 0, 1));
        page.update(announce(A, 1, 2, 1));

        assertThat(nodesOf(0)).isEmpty();
        assertThat(nodesOf(1)).containsExactly(A);
        assertThat(page.announcement(A)).hasValueSatisfying(a -> assertThat(a.sequence()).isEqualTo(2));
    }

    @Test
    void staleSequenceIsIgnored() {
        page.update(announce(A, 1, 5, 0));
        page.update(announce(A, 1, 4, 1));
        page.update(announce(A, 1, 5, 2)); // a duplicate is stale too

        assertThat(nodesOf(0)).containsExactly(A);
        assertThat(nodesOf(1)).isEmpty();
        assertThat(nodesOf(2)).isEmpty();
        assertThat(page.announcement(A)).hasValueSatisfying(a -> assertThat(a.sequence()).isEqualTo(5));
    }

    @Test
    void olderIncarnationIsIgnoredWhateverItsSequence() {
        page.update(announce(A, 200, 1, 0));
        page.update(announce(A, 100, 999, 1));

        assertThat(nodesOf(0)).containsExactly(A);
        assertThat(nodesOf(1)).isEmpty();
    }

    @Test
    void newerIncarnationWinsWithALowerSequence() {
        page.update(announce(A, 100, 999, 0));
        page.update(announce(A, 200, 1, 1)); // the node restarted

        assertThat(nodesOf(0)).isEmpty();
        assertThat(nodesOf(1)).containsExactly(A);
    }

    @Test
    void entryExpiresAfterTheExpiryTime() {
        page.update(announce(A, 1, 1, 0));
        advance(Duration.ofSeconds(2));
        page.update(announce(B, 1, 1, 0));

        advance(EXPIRY.minusSeconds(2));
        assertThat(page.expire()).as("exactly the expiry time is not yet expired").isZero();
        assertThat(nodesOf(0)).containsExactlyInAnyOrder(A, B);

        advance(Duration.ofNanos(1));
        assertThat(page.expire()).isEqualTo(1);
        assertThat(nodesOf(0)).containsExactly(B);
        assertThat(page.contains(A)).isFalse();
        assertThat(page.announcement(A)).isEmpty();

        advance(Duration.ofSeconds(2));
        assertThat(page.expire()).isEqualTo(1);
        assertThat(page.partitions("echo")).isEmpty();
        assertThat(page.expiries()).as("the metric counts both").isEqualTo(2);
        assertThat(page.departures()).isZero();
    }

    @Test
    void afterThisProcessWasPausedEveryEntryGetsAFreshExpiryInsteadOfExpiring() {
        Duration period = EXPIRY.dividedBy(10);
        page.update(announce(A, 1, 1, 0));
        page.update(announce(B, 1, 1, 0));
        for (int i = 0; i < 5; i++) { // the expiry task runs on schedule
            advance(period);
            assertThat(page.expire(period)).isZero();
        }
        // SIGSTOP (or a GC pause) longer than the expiry: nobody could be heard meanwhile, this process
        // least of all; expiring everyone now made a woken secondary elect itself against a live primary
        advance(EXPIRY.plusSeconds(3));
        assertThat(page.expire(period)).as("the first check after the pause").isZero();
        assertThat(nodesOf(0)).containsExactlyInAnyOrder(A, B);

        page.update(announce(B, 1, 2, 0)); // B speaks again; A really died during the pause
        for (long waited = 0; waited < EXPIRY.toNanos(); waited += period.toNanos()) {
            advance(period);
            page.update(announce(B, 1, 3 + waited / period.toNanos(), 0));
            page.expire(period);
        }
        advance(period);
        assertThat(page.expire(period)).as("a fresh expiry later, the silent one goes").isEqualTo(1);
        assertThat(nodesOf(0)).containsExactly(B);
    }

    @Test
    void theFirstCheckIsNoPauseHowEverLongTheJoinTook() {
        // The expiry task starts once the JGroups join returns, which on a busy cluster takes seconds
        // (ten 1 s JOIN attempts before a member gives up): that wait is not a pause of this process.
        Duration period = EXPIRY.dividedBy(10);
        page.update(announce(A, 1, 1, 0));
        advance(EXPIRY.plusSeconds(2));
        assertThat(page.expire(period)).as("A, silent for longer than the expiry while this process ran").isEqualTo(1);
        assertThat(nodesOf(0)).isEmpty();
    }

    @Test
    void announcementsKeepAnEntryAlive() {
        page.update(announce(A, 1, 1, 0));
        for (int i = 2; i < 10; i++) {
            advance(Duration.ofSeconds(4));
            page.update(announce(A, 1, i, 0));
            assertThat(page.expire()).isZero();
        }
        assertThat(nodesOf(0)).containsExactly(A);
    }

    @Test
    void staleAnnouncementDoesNotRefreshTheEntry() {
        page.update(announce(A, 1, 5, 0));
        advance(Duration.ofSeconds(4));
        page.update(announce(A, 1, 5, 0)); // a delayed duplicate proves nothing about liveness
        advance(Duration.ofSeconds(2));

        assertThat(page.expire()).isEqualTo(1);
    }

    @Test
    void removeDropsTheNodeAtOnce() {
        page.update(announce(A, 1, 1, 0));
        page.update(announce(B, 1, 1, 0));

        page.remove(A, "left the view");
        page.remove(NodeId.of("unknown"), "never there");
        assertThat(page.departures()).as("only a node that was there counts").isEqualTo(1);

        assertThat(nodesOf(0)).containsExactly(B);
        assertThat(page.contains(A)).isFalse();
        assertThat(page.announcements()).extracting(Announcement::node).containsExactly("b");
    }

    @Test
    void removedNodeReturnsWithItsNextAnnouncement() {
        page.update(announce(A, 1, 1, 0));
        page.remove(A, "left the view");
        page.update(announce(A, 1, 1, 0)); // nothing to be stale against any more

        assertThat(nodesOf(0)).containsExactly(A);
    }

    @Test
    void threeFailedConnectsExcludeUntilTheNextAnnouncement() {
        page.update(announce(A, 1, 1, 0));
        page.update(announce(B, 1, 1, 0));

        page.connectFailed(A);
        page.connectFailed(A);
        assertThat(nodesOf(0)).containsExactlyInAnyOrder(A, B);
        page.connectFailed(A);

        assertThat(YellowPage.MAX_CONNECT_FAILURES).isEqualTo(3);
        assertThat(nodesOf(0)).containsExactly(B);
        assertThat(page.contains(A)).isFalse();
        assertThat(page.announcements()).as("excluded nodes stay in the page")
                .extracting(Announcement::node).containsExactlyInAnyOrder("a", "b");

        page.connectFailed(A);
        page.connectSucceeded(A); // a late success does not lift the exclusion
        assertThat(page.contains(A)).isFalse();
        page.update(announce(A, 1, 1, 0)); // a stale announcement does not either
        assertThat(page.contains(A)).isFalse();

        page.update(announce(A, 1, 2, 0));
        assertThat(page.contains(A)).isTrue();
        assertThat(nodesOf(0)).containsExactlyInAnyOrder(A, B);

        page.connectFailed(A);
        page.connectFailed(A);
        assertThat(page.contains(A)).as("the count restarted with the announcement").isTrue();
        page.connectFailed(A);
        assertThat(page.contains(A)).isFalse();
    }

    @Test
    void announcementsBetweenFailedConnectsDoNotResetTheCount() {
        page.update(announce(A, 1, 1, 0));
        page.connectFailed(A);
        page.update(announce(A, 1, 2, 0));
        page.connectFailed(A);
        page.update(announce(A, 1, 3, 0));
        assertThat(page.contains(A)).isTrue();
        page.connectFailed(A);
        assertThat(page.contains(A)).as("a node that announces every second but refuses connections").isFalse();

        page.update(announce(B, 1, 1, 0));
        page.connectFailed(B);
        page.connectFailed(B);
        page.update(announce(B, 2, 1, 0)); // B restarted: a new process
        page.connectFailed(B);
        assertThat(page.contains(B)).as("the failures of B's previous process do not count").isTrue();
    }

    @Test
    void anAnnouncementThePageCannotHoldIsIgnored() {
        page.update(announce(A, 1, 1, 0));
        Announcement.HostedService other = new Announcement.HostedService("echo", 8, 0, List.of());
        page.update(new Announcement("b", "127.0.0.1", 10_100, 10_101, 1, 1, 1, 0, List.of(other)));
        assertThat(page.partitions("echo")).hasValue(4);

        // rejected while decoding: the page never sees them
        assertThatThrownBy(() -> new Announcement.HostedService("echo", -1, 0, List.of()))
                .hasMessageContaining("partitions: -1 (expected: 1..65536)");
        assertThatThrownBy(() -> new Announcement("b", "127.0.0.1", 70_000, 1, 1, 1, 1, 0, List.of()))
                .hasMessageContaining("tcpPort: 70000 (expected: 1..65535)");

        page.update(announce(A, 1, 2, 0, 1));
        assertThat(nodesOf(1)).as("the page still takes updates").containsExactly(A);
    }

    @Test
    void connectSucceededResetsTheFailureCount() {
        page.update(announce(A, 1, 1, 0));

        page.connectFailed(A);
        page.connectFailed(A);
        page.connectSucceeded(A);
        page.connectFailed(A);
        page.connectFailed(A);

        assertThat(page.contains(A)).isTrue();
        page.connectFailed(A);
        assertThat(page.contains(A)).isFalse();
    }

    @Test
    void connectEventsForUnknownNodesAreIgnored() {
        NodeId unknown = NodeId.of("ghost");
        for (int i = 0; i < 5; i++) {
            page.connectFailed(unknown);
        }
        page.connectSucceeded(unknown);
        page.update(announce(unknown, 1, 1, 0));

        assertThat(page.contains(unknown)).isTrue();
    }

    @Test
    void excludedEntryStillExpires() {
        page.update(announce(A, 1, 1, 0));
        for (int i = 0; i < 3; i++) {
            page.connectFailed(A);
        }
        advance(EXPIRY.plusNanos(1));

        assertThat(page.expire()).isEqualTo(1);
        assertThat(page.announcements()).isEmpty();
    }

    @Test
    void partitionsComesFromTheAnnouncedServices() {
        assertThat(page.partitions("echo")).isEmpty();
        page.update(announce(A, 1, 1, 0));
        assertThat(page.partitions("echo")).hasValue(4);
        assertThat(page.partitions("other")).isEmpty();

        page.update(new Announcement("b", "127.0.0.1", 1, 2, 1, 1, 1, 0, List.of(
                new Announcement.HostedService("kv", 16, 0, List.of()))));
        assertThat(page.partitions("kv")).as("a service with no hosted partition still has a count").hasValue(16);
        assertThat(page.replicas("kv", 0)).isEmpty();

        page.remove(A, "test");
        assertThat(page.partitions("echo")).isEmpty();
        assertThat(page.partitions("kv")).hasValue(16);
    }

    @Test
    void replicaStatesOutsideThePartitionRangeAreIgnored() {
        page.update(new Announcement("a", "127.0.0.1", 1, 2, 1, 1, 1, 0, List.of(
                new Announcement.HostedService("echo", 4, 0, List.of(
                        new Announcement.ReplicaState(-1, 0, ReplicaRole.SECONDARY, 0),
                        new Announcement.ReplicaState(4, 0, ReplicaRole.SECONDARY, 0),
                        new Announcement.ReplicaState(3, 0, ReplicaRole.PRIMARY, 0))))));

        assertThat(nodesOf(3)).containsExactly(A);
        assertThat(page.replicas("echo", 3).get(0).role()).isEqualTo(ReplicaRole.PRIMARY);
        assertThat(IntStream.range(0, 3).mapToObj(this::nodesOf)).allSatisfy(nodes -> assertThat(nodes).isEmpty());
    }

    @Test
    void lookupResultsAreImmutableSnapshots() {
        page.update(announce(A, 1, 1, 0));
        List<Replica> before = page.replicas("echo", 0);

        page.update(announce(B, 1, 1, 0));

        assertThat(before).extracting(Replica::node).containsExactly(A);
        assertThat(page.replicas("echo", 0)).hasSize(2);
        assertThatThrownBy(() -> before.add(before.get(0)))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
