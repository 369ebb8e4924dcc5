package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.AnnouncementSignatures.Accepted;
import io.neptune.core.internal.membership.AnnouncementSignatures.Refused;
import io.neptune.core.internal.membership.AnnouncementSignatures.Verdict;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import io.neptune.server.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signing and verifying announcements with certificates of a throwaway authority (here, in
 * neptune-server's tests, because the authority needs BouncyCastle, which neptune-core does not have).
 */
class AnnouncementSignaturesTest {
    private static final byte[] ANNOUNCEMENT = "{\"node\":\"node-1\",\"sequence\":7}".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path directory;

    private AnnouncementSignatures signatures(SecurityConfig security, String cluster) {
        return new AnnouncementSignatures(ReloadingKeyMaterial.of(security), cluster, System::currentTimeMillis);
    }

    private static Verdict verify(AnnouncementSignatures receiver, byte[] frame) {
        return receiver.verify(frame, 0, frame.length);
    }

    @Test
    void aNodesSignedAnnouncementVerifiesOnceItsChainIsKnown() {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        AnnouncementSignatures sender = signatures(ca.node("node-1"), "c");
        AnnouncementSignatures receiver = signatures(ca.node("node-2"), "c");

        for (int i = 0; i < 3; i++) {
            Verdict verdict = verify(receiver, sender.sign(ANNOUNCEMENT));
            assertThat(verdict).isInstanceOf(Accepted.class);
            assertThat(((Accepted) verdict).announcement()).isEqualTo(ANNOUNCEMENT);
            assertThat(((Accepted) verdict).signer().isNode(NodeId.of("node-1"))).isTrue();
        }
        assertThat(receiver.chainValidations()).as("chains validated").isEqualTo(1);
    }

    @Test
    void aChangedByteBreaksTheSignature() {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        AnnouncementSignatures sender = signatures(ca.node("node-1"), "c");
        byte[] frame = sender.sign(ANNOUNCEMENT);
        frame[frame.length - 3] ^= 1; // inside the announcement's JSON

        assertThat(verify(signatures(ca.node("node-2"), "c"), frame)).isEqualTo(new Refused(Refusal.BAD_SIGNATURE,
                "signed as neptune://node/node-1"));
    }

    @Test
    void aSignatureForAnotherClusterDoesNotVerify() {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        byte[] frame = signatures(ca.node("node-1"), "blue").sign(ANNOUNCEMENT);

        assertThat(verify(signatures(ca.node("node-2"), "green"), frame)).extracting(v -> ((Refused) v).refusal())
                .isEqualTo(Refusal.BAD_SIGNATURE);
    }

    @Test
    void aCertificateOfAnotherAuthorityIsUntrusted() {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        TestCertificates foreign = TestCertificates.create(directory.resolve("foreign"), "foreign");
        byte[] frame = signatures(foreign.node("node-1"), "c").sign(ANNOUNCEMENT);

        assertThat(verify(signatures(ca.node("node-2"), "c"), frame)).extracting(v -> ((Refused) v).refusal())
                .isEqualTo(Refusal.UNTRUSTED_CERTIFICATE);
    }

    @Test
    void aClientCertificateSignsNoAnnouncement() {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        byte[] frame = signatures(ca.required(new Principal(Principal.Role.CLIENT, "app")), "c").sign(ANNOUNCEMENT);

        assertThat(verify(signatures(ca.node("node-2"), "c"), frame)).isEqualTo(new Refused(Refusal.OTHER_NODE,
                "the certificate names neptune://client/app, not a node"));
    }

    @Test
    void aPlainAnnouncementIsUnsigned() {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");

        assertThat(verify(signatures(ca.node("node-2"), "c"), ANNOUNCEMENT)).isEqualTo(new Refused(Refusal.UNSIGNED,
                "an unsigned announcement (plain JSON)"));
    }

    @Test
    void aTrustFileWithoutTheAuthorityRefusesItsChainsFromTheNextCheckOn() throws Exception {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        TestCertificates successor = TestCertificates.create(directory.resolve("successor"), "successor");
        SecurityConfig receiverConfig = ca.node("node-2");
        Path trust = directory.resolve("trust.pem");
        Files.copy(ca.trust(), trust);
        AnnouncementSignatures receiver = signatures(receiverConfig.toBuilder().trust(trust).build(), "c");
        byte[] frame = signatures(ca.node("node-1"), "c").sign(ANNOUNCEMENT);
        assertThat(verify(receiver, frame)).isInstanceOf(Accepted.class);

        // The operator trusts only the successor now (the receiver keeps its own certificate).
        Path staged = directory.resolve("trust.pem.new");
        Files.copy(successor.trust(), staged);
        Files.setLastModifiedTime(staged, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        Files.move(staged, trust, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        await().atMost(Duration.ofSeconds(10)).until(() -> verify(receiver, frame) instanceof Refused refused
                && refused.refusal() == Refusal.UNTRUSTED_CERTIFICATE);
    }
}
