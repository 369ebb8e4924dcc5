package io.neptune.benchmarks;

import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.AnnouncementSignatures;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import io.neptune.server.internal.security.CertificateAuthority;
import io.neptune.server.internal.security.CertificateAuthority.Issued;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What signing an announcement costs with {@code security.tls: required}: {@link #sign} is the
 * announcing node's work per announcement (JSON bytes to the signed frame: ECDSA P-256 with
 * SHA-256 over a prefix, the cluster name and the JSON, and the frame with the node's DER
 * certificate), {@link #verify} a receiver's (the frame decoded, the chain found in the cache by
 * its SHA-256, the signature verified), and {@link #verifyNewChain} a receiver's first
 * announcement of a certificate (the chain parsed and PKIX-validated against the trust file too).
 * The JSON itself is not encoded here: unsigned announcements pay that as well. The certificates
 * come from the development authority ({@code neptune certs}), EC P-256 like its CA. The frame and
 * JSON sizes are printed at setup.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
public class AnnouncementSignatureBenchmark {
    /** Two nodes' key material from one throwaway authority, and one announcement of the first. */
    @State(Scope.Thread)
    public static class Signed {
        /** Replicas the announcing node hosts: a small node, and one with 64 partitions of a service. */
        @Param({"1", "64"})
        public int replicas;

        Path directory;
        ReloadingKeyMaterial receiverMaterial;
        AnnouncementSignatures sender;
        AnnouncementSignatures receiver;
        byte[] json;
        byte[] frame;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            directory = Files.createTempDirectory("neptune-announcement-bench-");
            CertificateAuthority authority = CertificateAuthority.create(directory.resolve("ca"), "bench",
                    Duration.ofDays(1));
            sender = signatures(ReloadingKeyMaterial.of(config(authority, "node-1")));
            receiverMaterial = ReloadingKeyMaterial.of(config(authority, "node-2"));
            receiver = signatures(receiverMaterial);
            json = Json.mapper().writeValueAsBytes(announcement(replicas));
            frame = sender.sign(json);
            System.err.printf("%n%d replicas: unsigned announcement %d bytes, signed frame %d bytes (+%d)%n", replicas,
                    json.length, frame.length, frame.length - json.length);
        }

        private SecurityConfig config(CertificateAuthority authority, String node) {
            Issued issued = authority.issue(Principal.node(NodeId.of(node)), directory.resolve(node),
                    Duration.ofDays(1));
            return SecurityConfig.builder().tls(SecurityConfig.TlsMode.REQUIRED)
                    .identity(issued.certificate(), issued.key()).trust(authority.certificate()).build();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static AnnouncementSignatures signatures(ReloadingKeyMaterial material) {
        return new AnnouncementSignatures(material, "bench", System::currentTimeMillis);
    }

    static Announcement announcement(int replicas) {
        List<Announcement.ReplicaState> states = new ArrayList<>();
        for (int p = 0; p < replicas; p++) {
            states.add(new Announcement.ReplicaState(p, 0, p % 3 == 0 ? ReplicaRole.PRIMARY : ReplicaRole.SECONDARY,
                    1_000_000 + p, 7, 1_000_000 + p, 7, 0));
        }
        Announcement.HostedService service = new Announcement.HostedService("kv", Math.max(replicas, 1), 3, states,
                ConsistencyLevel.LEVEL_2, 0);
        return new Announcement("node-1", "10.0.0.17", 7000, 7001, 4242, 1_763_776_735_000L, 17, 3, List.of(service),
                123_456, 9090, false, true);
    }

    /** The announcing node: JSON bytes to the signed frame. */
    @Benchmark
    public byte[] sign(Signed s) {
        return s.sender.sign(s.json);
    }

    /** A receiver, for a certificate it has seen: the frame checked and the signature verified. */
    @Benchmark
    public AnnouncementSignatures.Verdict verify(Signed s) {
        return s.receiver.verify(s.frame, 0, s.frame.length);
    }

    /**
     * A receiver's first frame of a certificate: the chain parsed and PKIX-validated as well (a
     * receiver with an empty cache is made for each call; its key material was read once, as a
     * node's is, and making it is a few allocations).
     */
    @Benchmark
    public AnnouncementSignatures.Verdict verifyNewChain(Signed s) {
        return signatures(s.receiverMaterial).verify(s.frame, 0, s.frame.length);
    }
}
