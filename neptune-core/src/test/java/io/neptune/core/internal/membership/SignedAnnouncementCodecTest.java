package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.internal.membership.SignedAnnouncementCodec.SignedAnnouncement;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SignedAnnouncementCodecTest {
    private static final SignedAnnouncement SIGNED = new SignedAnnouncement(
            List.of(new byte[] {1, 2, 3}, new byte[] {4}), new byte[] {9, 9}, "{\"node\":\"n\"}".getBytes(StandardCharsets.UTF_8));

    @Test
    void roundTrips() {
        byte[] frame = SignedAnnouncementCodec.encode(SIGNED);
        byte[] padded = new byte[frame.length + 7];
        System.arraycopy(frame, 0, padded, 3, frame.length);

        SignedAnnouncement decoded = SignedAnnouncementCodec.decode(padded, 3, frame.length).orElseThrow();

        assertThat(decoded.chain()).hasSize(2);
        assertThat(decoded.chain().get(0)).containsExactly(1, 2, 3);
        assertThat(decoded.chain().get(1)).containsExactly(4);
        assertThat(decoded.signature()).containsExactly(9, 9);
        assertThat(decoded.announcement()).isEqualTo(SIGNED.announcement());
    }

    @Test
    void aPlainAnnouncementIsNoSignedFrame() {
        byte[] json = "{\"node\":\"n\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(SignedAnnouncementCodec.decode(json, 0, json.length)).isEmpty();
    }

    @Test
    void everyTruncationAndTrailingByteIsRefused() {
        byte[] frame = SignedAnnouncementCodec.encode(SIGNED);
        for (int length = 0; length < frame.length; length++) {
            assertThat(SignedAnnouncementCodec.decode(frame, 0, length)).as("first %d bytes", length).isEmpty();
        }
        byte[] longer = Arrays.copyOf(frame, frame.length + 1);
        assertThat(SignedAnnouncementCodec.decode(longer, 0, longer.length)).isEmpty();
    }

    @Test
    void aLengthBeyondTheFrameIsRefused() {
        byte[] frame = SignedAnnouncementCodec.encode(SIGNED);
        frame[2] = (byte) 0xFF; // the first certificate's length, high byte
        assertThat(SignedAnnouncementCodec.decode(frame, 0, frame.length)).isEmpty();
        frame = SignedAnnouncementCodec.encode(SIGNED);
        frame[1] = 0; // no certificate
        assertThat(SignedAnnouncementCodec.decode(frame, 0, frame.length)).isEmpty();
    }

    @Test
    void anEmptyChainCannotBeEncoded() {
        assertThatThrownBy(() -> new SignedAnnouncement(List.of(), new byte[0], new byte[0]))
                .hasMessage("chain: 0 certificates (expected: 1..8)");
    }
}
