package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.server.KvTestService.Get;
import io.neptune.server.KvTestService.Value;
import io.neptune.server.internal.security.CertificateAuthority;
import io.neptune.server.internal.security.CertificateAuthority.Issued;
import io.neptune.testing.WireFrames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotating every node's certificate, then rolling the cluster over to a new certificate authority,
 * on a running three-node cluster (TLS required, a level-2 service replicated on all three) while a
 * client reads and writes without pause (issue 23, item 9). Each step is the one docs/SECURITY.md
 * gives the operator: files replaced by a rename, and the trust bundle widened before any
 * certificate of the new authority is used and narrowed only after none of the old one is. Every
 * call succeeds; new connections present the new serials, on the request port and the JGroups
 * port; once the old authority left the trust files, a peer with one of its certificates is
 * refused and counted.
 */
class CertificateRotationIT {
    private static final Duration VALIDITY = Duration.ofDays(2);
    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * How long after a TLS file changed every node and client is sure to use it for a new connection:
     * each of their TLS contexts looks at its files when it is used, at most once a second.
     */
    private static final Duration RELOAD_BOUND = Duration.ofMillis(2_500);
    private static final int NODES = 3;
    private static final int SESSIONS = 3;
    private static final Duration PACE = Duration.ofMillis(25);

    @TempDir
    Path directory;

    private final List<Holder> nodes = new ArrayList<>();
    private MiniCluster cluster;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyCertificateAndThenTheAuthorityRollOverUnderLoadWithoutAFailedCall() throws Exception {
        CertificateAuthority first = authority("ca-1");
        for (int i = 0; i < NODES; i++) {
            nodes.add(holder(Principal.node(NodeId.of("node-" + i)), first, first));
        }
        Holder app = holder(new Principal(Principal.Role.CLIENT, "app"), first, first);
        try (MiniCluster started = MiniCluster.start(0, b -> b)) {
            cluster = started;
            for (Holder node : nodes) {
                cluster.add(node.config(cluster), b -> b.host(new KvTestService(),
                        HostingConfig.builder().replicas(NODES).build()));
            }
            NeptuneNode client = cluster.add(app.config(cluster), b -> b);
            cluster.awaitNodes(NODES);
            for (int i = 0; i < NODES; i++) {
                assertThat(cluster.node(i).awaitReady(WAIT)).as("node-%d's replicas serving", i).isTrue();
            }

            KvSessionLoad load = KvSessionLoad.start(client.client(), SESSIONS, PACE);
            try {
                awaitMoreCalls(load, 100);
                Holder stale = rotateEveryCertificate(first, app, load);
                rollOverTheAuthority(first, app, stale, load);
                awaitMoreCalls(load, 100);
            } finally {
                load.close();
            }
            assertThat(load.failures()).as("failed calls and wrong answers").isEmpty();
            int read = load.verify();
            assertThat(load.failures()).as("acknowledged writes read back").isEmpty();
            assertThat(read).as("acknowledged writes").isGreaterThan(200);
            assertViewWhole();
            System.out.printf("CertificateRotationIT: %d calls succeeded, none failed; %d acknowledged writes read"
                    + " back; refused at the request ports: %s, at the JGroups ports: %s%n", load.calls(), read,
                    refusals("neptune_server_refused_connections_total", "reason=\"handshake\""),
                    refusals("neptune_membership_refused_total", "reason=\"untrusted-peer\""));
        }
    }

    /**
     * Phase 1: new certificates of the same authority for every node and the client. Node-0's key
     * and certificate arrive seconds apart (two renames done by hand), the others' as
     * {@code ./neptune certs issue} writes them (the key, then the certificate). Returns a holder of
     * node-0's old certificate and key, for phase 2.
     */
    private Holder rotateEveryCertificate(CertificateAuthority first, Holder app, KvSessionLoad load)
            throws Exception {
        Holder probe = holder(new Principal(Principal.Role.CLIENT, "probe-1"), first, first);
        Holder node0 = nodes.get(0);
        Holder stale = new Holder(node0.principal(), directory.resolve("stale-node-0"));
        Files.createDirectories(stale.directory());
        Files.copy(node0.certificate(), stale.certificate());
        Files.copy(node0.key(), stale.key());
        BigInteger oldSerial = probe.probe().presentedSerial(requestAddress(0));

        Issued staged = first.issue(node0.principal(), directory.resolve("staged"), VALIDITY);
        replace(staged.key(), node0.key());
        holdsThroughout("node-0 keeps its old certificate and key while only the new key is in place", RELOAD_BOUND,
                () -> {
                    assertThat(probe.probe().presentedSerial(requestAddress(0))).as("request port").isEqualTo(oldSerial);
                    assertThat(probe.probe().answers(requestAddress(0), readFrame())).as("a call answered").isTrue();
                    assertThat(probe.probe().presentedSerial(membershipAddress(0))).as("JGroups port")
                            .isEqualTo(oldSerial);
                });
        replace(staged.certificate(), node0.certificate());
        awaitPresented(probe, 0, staged.serial());

        for (int i = 1; i < NODES; i++) {
            awaitPresented(probe, i, nodes.get(i).issueFrom(first).serial());
        }
        BigInteger appSerial = app.issueFrom(first).serial();
        await("the client's new certificate").atMost(WAIT).untilAsserted(() -> assertThat(probe.probe()
                .presentedSerial(cluster.node(NODES).requestAddress())).isEqualTo(appSerial));
        assertViewWhole();
        awaitMoreCalls(load, 50);
        return stale;
    }

    /**
     * Phase 2: the roll-over to a second authority, in the order docs/SECURITY.md gives: (1) every
     * trust bundle holds both authorities, (2) every node and client gets a certificate of the
     * second, (3) the first leaves the trust bundles. Between the steps, the reload bound passes, so
     * that no node or client uses the files of the step before for a new connection.
     */
    private void rollOverTheAuthority(CertificateAuthority first, Holder app, Holder stale, KvSessionLoad load)
            throws Exception {
        CertificateAuthority second = authority("ca-2");
        Holder probe = holder(new Principal(Principal.Role.CLIENT, "probe-2"), second, first, second);
        stale.trust(first, second); // it would take either node certificate: the node is the one to refuse it

        for (Holder holder : all(app)) {
            holder.trust(first, second);
        }
        for (int i = 0; i < NODES; i++) {
            InetSocketAddress address = requestAddress(i);
            await("node-" + i + " trusting the second authority").atMost(WAIT)
                    .until(() -> probe.probe().answers(address, readFrame()));
        }
        waitOutReloadBound();
        awaitMoreCalls(load, 50);

        for (int i = 0; i < NODES; i++) {
            awaitPresented(probe, i, nodes.get(i).issueFrom(second).serial());
        }
        BigInteger appSerial = app.issueFrom(second).serial();
        await("the client's certificate of the second authority").atMost(WAIT).untilAsserted(() -> assertThat(
                probe.probe().presentedSerial(cluster.node(NODES).requestAddress())).isEqualTo(appSerial));
        waitOutReloadBound();
        awaitMoreCalls(load, 50);

        double[] refusedBefore = new double[NODES];
        double[] untrustedBefore = new double[NODES];
        for (int i = 0; i < NODES; i++) {
            refusedBefore[i] = metric(i, "neptune_server_refused_connections_total", "reason=\"handshake\"");
            untrustedBefore[i] = metric(i, "neptune_membership_refused_total", "reason=\"untrusted-peer\"");
        }
        for (Holder holder : all(app)) {
            holder.trust(second);
        }
        for (int i = 0; i < NODES; i++) {
            int node = i;
            await("node-" + i + " refusing node-0's certificate of the first authority").atMost(WAIT)
                    .until(() -> !stale.probe().answers(requestAddress(node), readFrame()));
            await("the refusal counted").atMost(WAIT).until(() -> metric(node, "neptune_server_refused_connections_total",
                    "reason=\"handshake\"") > refusedBefore[node]);
            await("its JGroups port refusing it").atMost(WAIT).until(() -> stale.probe().refused(membershipAddress(node)));
            await("that refusal counted").atMost(WAIT).until(() -> metric(node, "neptune_membership_refused_total",
                    "reason=\"untrusted-peer\"") > untrustedBefore[node]);
            assertThat(probe.probe().answers(requestAddress(i), readFrame())).as("node-%d serving the second authority's"
                    + " certificates", i).isTrue();
        }
        awaitMoreCalls(load, 50);
        assertALateClientOfTheSecondAuthorityOnlyJoinsAndCalls(second);
    }

    /**
     * A client that starts now and trusts the second authority only: the nodes' JGroups and request
     * ports must present certificates of the second authority on new connections, and take its.
     */
    private void assertALateClientOfTheSecondAuthorityOnlyJoinsAndCalls(CertificateAuthority second) {
        Holder late = holder(new Principal(Principal.Role.CLIENT, "late"), second, second);
        NeptuneNode client = cluster.add(late.config(cluster), b -> b);
        await("the late client's yellow page").atMost(WAIT).until(() -> client.knownNodes().containsAll(nodeIds()));
        NeptuneHandle handle = NeptuneHandle.create();
        for (int partition = 0; partition < 8; partition++) {
            Value value = client.client().call(handle, "kv", partition, "get", AccessMode.READ, new Get("absent"),
                    Value.class);
            assertThat(value.v()).isNull();
        }
    }

    private void awaitPresented(Holder probe, int node, BigInteger serial) {
        await("node-" + node + "'s new certificate on its request port").atMost(WAIT).untilAsserted(() ->
                assertThat(probe.probe().presentedSerial(requestAddress(node))).isEqualTo(serial));
        await("node-" + node + "'s new certificate on its JGroups port").atMost(WAIT).untilAsserted(() ->
                assertThat(probe.probe().presentedSerial(membershipAddress(node))).isEqualTo(serial));
    }

    private void assertViewWhole() {
        for (int i = 0; i < NODES; i++) {
            assertThat(cluster.node(i).knownNodes()).as("node-%d's yellow page", i).containsAll(nodeIds());
            assertThat(metric(i, "neptune_yellow_page_departures_total", "")).as("node-%d: members the view dropped", i)
                    .isZero();
        }
    }

    private List<Double> refusals(String name, String labels) {
        List<Double> counts = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            counts.add(metric(i, name, labels));
        }
        return counts;
    }

    private static void awaitMoreCalls(KvSessionLoad load, long more) {
        long target = load.calls() + more;
        await("the load's calls").atMost(WAIT).failFast("a failed call", () -> !load.failures().isEmpty())
                .until(() -> load.calls() >= target);
    }

    private List<NodeId> nodeIds() {
        return nodes.stream().map(h -> NodeId.of(h.principal().name())).toList();
    }

    private List<Holder> all(Holder app) {
        return Stream.concat(nodes.stream(), Stream.of(app)).toList();
    }

    private InetSocketAddress requestAddress(int node) {
        return cluster.node(node).requestAddress();
    }

    /**
     * The JGroups TCP address of node {@code node}: the loopback stack's discovery files list each
     * member as {@code name uuid host:port coordinator}.
     */
    private InetSocketAddress membershipAddress(int node) throws IOException {
        String name = "node-" + node;
        Path files = cluster.membership().discoveryDirectory().resolve(cluster.membership().cluster());
        try (Stream<Path> list = Files.list(files)) {
            for (Path file : list.filter(f -> f.getFileName().toString().endsWith(".list")).toList()) {
                for (String line : Files.readAllLines(file)) {
                    String[] fields = line.trim().split("\\s+");
                    if (fields.length >= 3 && fields[0].equals(name)) {
                        int colon = fields[2].lastIndexOf(':');
                        return new InetSocketAddress(fields[2].substring(0, colon),
                                Integer.parseInt(fields[2].substring(colon + 1)));
                    }
                }
            }
        }
        throw new AssertionError(name + " is in no discovery file of " + files);
    }

    /** The sum of the values of {@code name}'s series on {@code node} whose labels contain {@code labels}. */
    private double metric(int node, String name, String labels) {
        double sum = 0;
        for (String line : cluster.node(node).metricsText().split("\n")) {
            if (line.startsWith(name + "{") && line.contains(labels)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    private static byte[] readFrame() throws IOException {
        return WireFrames.bytes(new RequestMessage(1, "kv", 0, "get", AccessMode.READ, 5_000, 0, RequestId.NONE,
                Json.mapper().writeValueAsBytes(new Get("probe"))));
    }

    private CertificateAuthority authority(String name) {
        return CertificateAuthority.create(directory.resolve(name), name, VALIDITY);
    }

    /** A holder of a certificate of {@code issuer}, trusting {@code trusted}. */
    private Holder holder(Principal principal, CertificateAuthority issuer, CertificateAuthority... trusted) {
        Holder holder = new Holder(principal, directory.resolve(principal.role().name().toLowerCase(Locale.ROOT) + "-"
                + principal.name()));
        holder.issueFrom(issuer);
        holder.trust(trusted);
        return holder;
    }

    /**
     * Waits out {@link #RELOAD_BOUND}: nothing tells when every TLS context of every node has looked
     * at its files again (each looks when it is used), only that each does within a second of its
     * next use. The operator waits the same between the roll-over's steps (docs/SECURITY.md).
     */
    private static void waitOutReloadBound() {
        long end = System.nanoTime() + RELOAD_BOUND.toNanos();
        await().atMost(RELOAD_BOUND.plus(WAIT)).until(() -> System.nanoTime() - end >= 0);
    }

    /** Checks {@code check} every 100 ms for {@code period}; the first failure fails the test. */
    private static void holdsThroughout(String what, Duration period, ThrowingRunnable check) {
        long end = System.nanoTime() + period.toNanos();
        await(what).atMost(period.plus(WAIT)).pollInterval(Duration.ofMillis(100))
                .failFast(what + ": broken", check)
                .until(() -> System.nanoTime() - end >= 0);
    }

    /** What an operator does with one file: a new one renamed over the one in use. */
    private static void replace(Path staged, Path inUse) throws IOException {
        Files.move(staged, inUse, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** A node's or client's TLS files, in a directory of its own as on its machine. */
    private record Holder(Principal principal, Path directory) {
        private String base() {
            return principal.role().name().toLowerCase(Locale.ROOT) + "-" + principal.name();
        }

        Path certificate() {
            return directory.resolve(base() + ".pem");
        }

        Path key() {
            return directory.resolve(base() + "-key.pem");
        }

        Path trust() {
            return directory.resolve("trust.pem");
        }

        /** A new certificate and key of {@code authority}, written as {@code ./neptune certs issue --out} does. */
        Issued issueFrom(CertificateAuthority authority) {
            return authority.issue(principal, directory, VALIDITY);
        }

        /** Replaces the trust bundle by one of {@code authorities}: a new file renamed over it. */
        void trust(CertificateAuthority... authorities) {
            try {
                StringBuilder bundle = new StringBuilder();
                for (CertificateAuthority authority : authorities) {
                    bundle.append(Files.readString(authority.certificate()));
                }
                Path staged = directory.resolve(".trust.pem.tmp");
                Files.writeString(staged, bundle);
                replace(staged, trust());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        SecurityConfig security() {
            return SecurityConfig.builder().tls(TlsMode.REQUIRED).identity(certificate(), key()).trust(trust()).build();
        }

        NodeConfig config(MiniCluster cluster) {
            return cluster.config(principal.name(), ClientConfig.defaults()).toBuilder().security(security()).build();
        }

        /** A probe with the files as they are now. */
        TlsProbe probe() {
            return TlsProbe.of(certificate(), key(), trust());
        }
    }
}
