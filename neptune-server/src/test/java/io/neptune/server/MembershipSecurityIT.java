package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.JGroupsStacks;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.MembershipSecurity;
import io.neptune.core.internal.membership.Refusal;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.util.NameCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The membership door with {@code security.tls: required} (issue 23, item 3): real JGroups channels
 * on the loopback stack (TLS over 127.0.0.1, a discovery directory of the test's) and real
 * certificates from throwaway authorities. Each test tries to get into the honest members' view or
 * yellow page and checks that it did not.
 */
class MembershipSecurityIT {
    private static final Duration INTERVAL = Duration.ofMillis(200);
    private static final Duration EXPIRY = Duration.ofSeconds(1);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path directory;

    private final String cluster = "sec-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<Member> announcing = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService announcer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void close() throws Exception {
        announcer.shutdownNow();
        assertThat(announcer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void aNodeWithoutTheClustersAuthorityCannotJoin() {
        TestCertificates authority = TestCertificates.create(directory.resolve("ca"), "cluster");
        TestCertificates foreign = TestCertificates.create(directory.resolve("foreign-ca"), "foreign");
        Member a = start("node-0", authority.node("node-0"));
        Member b = start("node-1", authority.node("node-1"));
        awaitListed(List.of(a, b), 2);

        start("node-2", foreign.node("node-2")); // a valid certificate, of an authority the cluster does not trust

        holdsThroughout("the honest view and yellow pages unchanged", EXPIRY.multipliedBy(3), () ->
                a.channel().viewSize() == 2 && b.channel().viewSize() == 2 && !a.page().contains(NodeId.of("node-2"))
                        && !b.page().contains(NodeId.of("node-2")));
        await("the refusal counted").atMost(WAIT).until(() -> refused(a, Refusal.UNTRUSTED_PEER)
                + refused(b, Refusal.UNTRUSTED_PEER) > 0);
    }

    @Test
    void aPlaintextMemberCannotJoin() throws Exception {
        TestCertificates authority = TestCertificates.create(directory.resolve("ca"), "cluster");
        Member a = start("node-0", authority.node("node-0"));
        Member b = start("node-1", authority.node("node-1"));
        awaitListed(List.of(a, b), 2);

        JChannel plaintext = JGroupsStacks.create(membership()).name("intruder");
        resources.add(plaintext);
        plaintext.connect(cluster);
        plaintext.send(new BytesMessage(null, json(announcement("node-1", Long.MAX_VALUE / 2, 1, 1))));

        holdsThroughout("the honest view and yellow pages unchanged", EXPIRY.multipliedBy(3), () ->
                a.channel().viewSize() == 2 && b.channel().viewSize() == 2 && isHonest(a.page(), b));
        assertThat(plaintext.getView().size()).as("the intruder's own view").isEqualTo(1);
    }

    @Test
    void aMemberCannotAnnounceAnotherNode() {
        TestCertificates authority = TestCertificates.create(directory.resolve("ca"), "cluster");
        Member a = start("node-0", authority.node("node-0"));
        Member b = start("node-1", authority.node("node-1"));
        awaitListed(List.of(a, b), 2);
        Member forger = start("node-2", authority.node("node-2")); // a member, with a valid node certificate
        await().atMost(WAIT).until(() -> a.channel().viewSize() == 3);

        // node-1's id from node-2, with a higher incarnation, pointing at node-2's ports
        forger.channel().publish(announcement("node-1", b.incarnation() + 1_000_000, 1, forger.port()));

        holdsThroughout("node-1's entry untouched", EXPIRY.multipliedBy(3), () -> isHonest(a.page(), b)
                && isHonest(b.page(), b));
        assertThat(refused(a, Refusal.OTHER_NODE)).as("forgeries counted").isEqualTo(1);
        assertThat(refused(b, Refusal.OTHER_NODE)).as("forgeries counted").isEqualTo(1);
    }

    @Test
    void aClientCertificateJoinsButAnnouncesNoNode() {
        TestCertificates authority = TestCertificates.create(directory.resolve("ca"), "cluster");
        Member a = start("node-0", authority.node("node-0"));
        Member b = start("node-1", authority.node("node-1"));
        awaitListed(List.of(a, b), 2);
        Member app = start("app", authority.required(new Principal(Principal.Role.CLIENT, "app")), false);

        await("the client in the view, reading the yellow page").atMost(WAIT).until(() -> a.channel().viewSize() == 3
                && app.page().contains(NodeId.of("node-0")) && app.page().contains(NodeId.of("node-1")));
        app.channel().publish(announcement("app", 1, 1, app.port()));
        holdsThroughout("the client not listed", EXPIRY, () -> !a.page().contains(NodeId.of("app")));
        assertThat(refused(a, Refusal.OTHER_NODE)).as("its announcement refused").isEqualTo(1);
    }

    @Test
    void aReplayedAnnouncementOfANodeThatLeftDoesNotListItAgain() throws Exception {
        TestCertificates authority = TestCertificates.create(directory.resolve("ca"), "cluster");
        Member a = start("node-0", authority.node("node-0"));
        Member b = start("node-1", authority.node("node-1"));
        awaitListed(List.of(a, b), 2);
        // A member (a client certificate is enough to join) that records what node-1 signed.
        MembershipSecurity security = MembershipSecurity.of(NodeId.of("recorder"), membership(),
                authority.required(new Principal(Principal.Role.CLIENT, "recorder"))).orElseThrow();
        JChannel recorder = JGroupsStacks.create(membership(), security).name("recorder");
        resources.add(recorder);
        AtomicReference<byte[]> captured = new AtomicReference<>();
        recorder.setReceiver(new Receiver() {
            @Override
            public void receive(Message msg) {
                if ("node-1".equals(NameCache.get(msg.getSrc()))) {
                    captured.set(msg.getArray().clone());
                }
            }
        });
        recorder.connect(cluster);
        await().atMost(WAIT).until(() -> captured.get() != null);

        announcing.remove(b);
        b.close();
        await("node-1 gone").atMost(WAIT).until(() -> !a.page().contains(NodeId.of("node-1")));
        recorder.send(new BytesMessage(null, captured.get()));

        holdsThroughout("node-1 not listed again by the replay", EXPIRY, () -> !a.page().contains(NodeId.of("node-1")));
        assertThat(refused(a, Refusal.REPLAYED)).as("the replay counted").isEqualTo(1);
    }

    /**
     * TLS {@code permissive}, the step between {@code disabled} and {@code required}: a permissive
     * member and a plaintext one share a view, each lists the other (the plaintext member reads the
     * signed announcements, the permissive one takes the unsigned ones), and a signed announcement
     * is still checked: one signed with another node's certificate is refused.
     */
    @Test
    void aPermissiveMemberTakesUnsignedAnnouncementsAndChecksSignedOnes() {
        TestCertificates authority = TestCertificates.create(directory.resolve("ca"), "cluster");
        Member permissive = start("node-0", permissive(authority.node("node-0")));
        Member plaintext = start("node-1", SecurityConfig.disabled());
        Member forger = start("node-2", permissive(authority.node("node-2")));
        awaitListed(List.of(permissive, plaintext, forger), 3);

        // node-1's id, signed with node-2's certificate
        forger.channel().publish(announcement("node-1", plaintext.incarnation() + 1_000_000, 1, forger.port()));

        holdsThroughout("node-1's entry untouched at the permissive member", EXPIRY.multipliedBy(2), () ->
                isHonest(permissive.page(), plaintext) && permissive.channel().viewSize() == 3);
        assertThat(refused(permissive, Refusal.OTHER_NODE)).as("the forgery counted").isEqualTo(1);
        assertThat(refused(permissive, Refusal.UNSIGNED)).as("unsigned announcements refused").isZero();
    }

    @Test
    void nodesWithTlsRequiredFormAClusterOverTlsAndRouteCalls() throws Exception {
        try (MiniCluster nodes = MiniCluster.startWithTls(3, b -> b.host(new EchoTestService(), HostingConfig.all()))) {
            NeptuneNode client = nodes.add("client", ClientConfig.defaults(), b -> b);
            nodes.awaitNodes(3); // the client's yellow page too: it calls at once
            NeptuneHandle handle = NeptuneHandle.create();
            for (int partition = 0; partition < 8; partition++) {
                Reply reply = client.client().call(handle, "echo", partition, "echo", AccessMode.READ,
                        new Echo("p" + partition), Reply.class, CallOptions.timeout(Duration.ofSeconds(20)));
                assertThat(reply.text()).contains("p" + partition);
            }
            // Its JGroups transport is TLS: a plaintext channel of the same cluster does not get in.
            try (JChannel plaintext = JGroupsStacks.create(nodes.membership()).name("intruder")) {
                plaintext.connect(nodes.membership().cluster());
                holdsThroughout("three nodes listed, not the intruder", Duration.ofSeconds(3), () -> nodes.nodes()
                        .stream().allMatch(n -> n.knownNodes().size() == 3));
                assertThat(plaintext.getView().size()).isEqualTo(1);
            }
            assertThat(nodes.node(0).metricsText()).contains("neptune_membership_refused_total");
        }
    }

    private Member start(String node, SecurityConfig security) {
        return start(node, security, true);
    }

    private Member start(String node, SecurityConfig security, boolean announces) {
        NodeId id = NodeId.of(node);
        YellowPage page = new YellowPage(id, EXPIRY, System::nanoTime);
        MembershipChannel channel = new MembershipChannel(id, membership(), security, page);
        Member member = new Member(id, page, channel, System.currentTimeMillis(), new AtomicLong(),
                20_000 + resources.size());
        resources.add(member);
        channel.start();
        if (announces) {
            announcing.add(member);
            if (announcing.size() == 1) {
                announcer.scheduleAtFixedRate(() -> announcing.forEach(Member::announce), 0, INTERVAL.toMillis(),
                        TimeUnit.MILLISECONDS);
            }
        }
        return member;
    }

    private static SecurityConfig permissive(SecurityConfig security) {
        return security.toBuilder().tls(SecurityConfig.TlsMode.PERMISSIVE).build();
    }

    private MembershipConfig membership() {
        return MembershipConfig.builder().cluster(cluster).discoveryDirectory(directory.resolve("discovery"))
                .announceInterval(INTERVAL).expiry(EXPIRY).build();
    }

    /** Fails as soon as {@code condition} is false at a check (every 50 ms) within {@code period}. */
    private static void holdsThroughout(String what, Duration period, BooleanSupplier condition) {
        long end = System.nanoTime() + period.toNanos();
        await(what).atMost(period.plus(WAIT)).pollInterval(Duration.ofMillis(50))
                .failFast(what + ": broken", () -> !condition.getAsBoolean())
                .until(() -> System.nanoTime() - end >= 0);
    }

    private static void awaitListed(List<Member> members, int count) {
        await().atMost(WAIT).until(() -> members.stream().allMatch(m -> m.page().announcements().size() == count
                && m.channel().viewSize() == count));
    }

    private static long refused(Member member, Refusal refusal) {
        Optional<MembershipSecurity> security = member.channel().security();
        return security.map(s -> s.refusals().count(refusal)).orElse(0L);
    }

    /** Whether {@code page} lists {@code node} as it announces itself. */
    private static boolean isHonest(YellowPage page, Member node) {
        return page.announcement(node.id()).map(a -> a.incarnation() == node.incarnation() && a.tcpPort() == node.port())
                .orElse(false);
    }

    private static Announcement announcement(String node, long incarnation, long sequence, int port) {
        return new Announcement(node, "127.0.0.1", port, port, 1, incarnation, sequence, 0, List.of());
    }

    private static byte[] json(Announcement announcement) throws Exception {
        return io.neptune.core.internal.json.Json.mapper().writeValueAsBytes(announcement);
    }

    /** One member: its channel, its yellow page, and what it announces about itself. */
    private record Member(NodeId id, YellowPage page, MembershipChannel channel, long incarnation, AtomicLong sequence,
            int port) implements AutoCloseable {
        /** Announces this member to the others and lists it in its own page, as a node's publisher does. */
        void announce() {
            Announcement own = announcement(id.value(), incarnation, sequence.incrementAndGet(), port);
            page.update(own);
            channel.publish(own);
        }

        @Override
        public void close() {
            channel.close();
        }
    }
}
