package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.AccessMode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.CorruptedFrameException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Wire version 2: a REQUEST's metadata section (flag 0x10) round-trips in a version-2 frame, a
 * request without metadata is still the version-1 frame every node reads, and a malformed or
 * oversize section is refused with a message naming what is wrong.
 */
class MetadataCodecTest {
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    /** The version byte: after the length prefix and the magic. */
    private static final int VERSION_OFFSET = 4 + 2;
    /** The flags byte: after the version, type and correlation id. */
    private static final int FLAGS_OFFSET = VERSION_OFFSET + 1 + 1 + 8;

    private static RequestMessage request(Metadata metadata) {
        return new RequestMessage(9, "front", 3, "page", AccessMode.READ, 2_000, 0, RequestId.NONE,
                "{}".getBytes(StandardCharsets.UTF_8)).withServiceClass("gold").withMetadata(metadata);
    }

    private static ByteBuf encode(Message message) {
        ByteBuf out = Unpooled.buffer();
        MessageEncoder.encode(message, out);
        assertThat(out.readableBytes()).as("the wire length the sender checks").isEqualTo(MessageEncoder.wireLength(message));
        return out;
    }

    /** Decodes {@code frame} as a node reading versions 1 to {@code maxVersion} does, and releases it. */
    private static Message decode(ByteBuf frame, int maxVersion) {
        try {
            frame.skipBytes(4);
            return MessageDecoder.decode(frame, maxVersion);
        } finally {
            frame.release();
        }
    }

    private static Metadata traceContext() {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("traceparent", TRACEPARENT);
        entries.put("tracestate", "neptune=1,vendor=é");
        return new Metadata(entries);
    }

    @Test
    void metadataRoundTripsInAVersionTwoFrameInItsOrder() {
        RequestMessage sent = request(traceContext());
        ByteBuf frame = encode(sent);
        assertThat(frame.getByte(VERSION_OFFSET)).isEqualTo(WireFormat.VERSION_2);
        assertThat(frame.getByte(FLAGS_OFFSET) & WireFormat.FLAG_METADATA).isEqualTo(WireFormat.FLAG_METADATA);

        RequestMessage received = (RequestMessage) decode(frame, WireFormat.LATEST);

        assertThat(received).usingRecursiveComparison().isEqualTo(sent);
        assertThat(received.metadata().entries().keySet()).containsExactly("traceparent", "tracestate");
        assertThat(received.metadata().get("traceparent")).contains(TRACEPARENT);
    }

    @Test
    void aRequestWithoutMetadataIsAVersionOneFrameThatANodeOfVersionOneReads() {
        RequestMessage sent = request(Metadata.NONE);
        ByteBuf frame = encode(sent);
        assertThat(frame.getByte(VERSION_OFFSET)).isEqualTo(WireFormat.VERSION_1);

        assertThat(decode(frame, WireFormat.VERSION_1)).usingRecursiveComparison().isEqualTo(sent);
    }

    @Test
    void aNodeOfVersionOneRefusesAFrameWithMetadataNamingTheVersion() {
        assertThatThrownBy(() -> decode(encode(request(traceContext())), WireFormat.VERSION_1))
                .isInstanceOf(CorruptedFrameException.class).hasMessage("protocol version: 2 (expected: 1)");
    }

    @Test
    void theMetadataFlagInAVersionOneFrameIsRefused() {
        ByteBuf frame = encode(request(traceContext()));
        frame.setByte(VERSION_OFFSET, WireFormat.VERSION_1);

        assertThatThrownBy(() -> decode(frame, WireFormat.LATEST)).isInstanceOf(CorruptedFrameException.class)
                .hasMessageStartingWith("flags: 0x11 (expected: only 0xf for message type 1)");
    }

    @Test
    void aMalformedSectionIsRefusedNamingWhatIsWrong() {
        assertRefused(out -> out.writeByte(0), "metadata count: 0 (expected: 1..16 with flag 0x10)");
        assertRefused(out -> out.writeByte(17), "metadata count: 17 (expected: 1..16 with flag 0x10)");
        assertRefused(out -> out.writeByte(1).writeShort(65), "metadata key: 65 bytes (expected: <= 64)");
        assertRefused(out -> out.writeByte(1).writeShort(2).writeBytes("ab".getBytes(StandardCharsets.UTF_8))
                .writeShort(1025), "metadata value: 1025 bytes (expected: <= 1024)");
        assertRefused(out -> out.writeByte(1).writeShort(2).writeBytes("A!".getBytes(StandardCharsets.UTF_8))
                .writeShort(0), "metadata key 'A!': character 'A' at 0 (expected: a-z 0-9 - _ .)");
        assertRefused(out -> {
            out.writeByte(2);
            for (int i = 0; i < 2; i++) {
                out.writeShort(1).writeByte('k').writeShort(1).writeByte('v');
            }
        }, "metadata key 'k' twice (expected: once)");
        assertRefused(out -> out.writeByte(1).writeShort(9).writeByte('k'),
                "truncated frame at metadata key: 5 bytes left (expected: >= 9)");
    }

    /** A version-2 request frame whose metadata section is what {@code section} writes, then an empty payload. */
    private static void assertRefused(Consumer<ByteBuf> section, String message) {
        ByteBuf frame = Unpooled.buffer().writeInt(0).writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION_2)
                .writeByte(WireFormat.TYPE_REQUEST).writeLong(1).writeByte(WireFormat.FLAG_METADATA);
        WireFormat.writeName(frame, "s");
        frame.writeInt(0);
        WireFormat.writeName(frame, "m");
        frame.writeByte(0).writeInt(1_000).writeLong(0).writeLong(0).writeLong(0);
        section.accept(frame);
        frame.writeInt(0);
        frame.setInt(0, frame.readableBytes() - 4);

        assertThatThrownBy(() -> decode(frame, WireFormat.LATEST)).as(message)
                .isInstanceOf(CorruptedFrameException.class).hasMessage(message);
    }

    @Test
    void metadataOverItsLimitsIsRefusedBeforeItIsSent() {
        Map<String, String> many = new LinkedHashMap<>();
        for (int i = 0; i < 17; i++) {
            many.put("k" + i, "v");
        }
        assertThatThrownBy(() -> new Metadata(many)).hasMessage("metadata: 17 entries (expected: <= 16)");
        assertThatThrownBy(() -> Metadata.NONE.with("Trace", "x"))
                .hasMessage("metadata key 'Trace': character 'T' at 0 (expected: a-z 0-9 - _ .)");
        assertThatThrownBy(() -> Metadata.NONE.with("baggage", "x".repeat(1025)))
                .hasMessage("metadata value of 'baggage': 1025 bytes (expected: <= 1024)");
        Map<String, String> big = new LinkedHashMap<>();
        for (int i = 0; i < 5; i++) {
            big.put("k" + i, "v".repeat(1000));
        }
        assertThatThrownBy(() -> new Metadata(big)).hasMessage("metadata: 5010 bytes of keys and values (expected: <= 4096)");
    }
}
