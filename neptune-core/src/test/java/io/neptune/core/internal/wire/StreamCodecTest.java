package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.AccessMode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stream frames (DATA, CREDIT, END, CANCEL) and the stream flags of REQUEST through the real
 * pipeline: round trips, and every malformed variant rejected with a message naming the problem.
 */
class StreamCodecTest {
    private static final int MAX_FRAME = 64 * 1024;
    private static final int TYPE_OFFSET = 4 + 2 + 1;
    private static final int FLAGS_OFFSET = TYPE_OFFSET + 1 + 8;
    private static final int BODY_OFFSET = 4 + WireFormat.HEADER_BYTES;

    private final List<ByteBuf> created = new ArrayList<>();
    private final EmbeddedChannel channel = newChannel();

    private static EmbeddedChannel newChannel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        Frames.install(ch.pipeline(), MAX_FRAME);
        return ch;
    }

    @AfterEach
    void noLeaks() {
        channel.finishAndReleaseAll();
        for (ByteBuf buf : created) {
            assertThat(buf.refCnt()).as("refCnt of a buffer handed to the decoder").isZero();
        }
    }

    @Test
    void everyStreamFrameRoundTrips() {
        StreamData data = new StreamData(42, "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
        StreamCredit credit = new StreamCredit(42, Integer.MAX_VALUE);
        StreamEnd completed = StreamEnd.completed(42);
        StreamEnd failed = StreamEnd.failed(42, "input broke: ü");
        StreamCancel cancel = new StreamCancel(42, "enough");

        for (Message sent : List.of(data, credit, completed, failed, cancel)) {
            assertThat(roundTrip(sent)).as("%s", sent).usingRecursiveComparison().isEqualTo(sent);
            assertThat(MessageEncoder.frameLength(sent)).isEqualTo(encodedLength(sent));
        }
        assertThat(((StreamEnd) roundTrip(failed)).message()).isEqualTo("input broke: ü");
    }

    @Test
    void streamRequestsSetTheirFlagsAndRoundTrip() {
        RequestMessage output = request(RequestMessage.Streaming.OUTPUT, "{}");
        RequestMessage bidirectional = request(RequestMessage.Streaming.BIDIRECTIONAL, "").withServiceClass("gold");

        assertThat(flagsOf(output)).isEqualTo(WireFormat.FLAG_STREAM);
        assertThat(flagsOf(bidirectional)).isEqualTo(WireFormat.FLAG_STREAM | WireFormat.FLAG_STREAM_INPUT
                | WireFormat.FLAG_SERVICE_CLASS);
        assertThat(roundTrip(output)).usingRecursiveComparison().isEqualTo(output);
        assertThat(roundTrip(bidirectional)).usingRecursiveComparison().isEqualTo(bidirectional);
        assertThat(((RequestMessage) roundTrip(output)).isStream()).isTrue();
    }

    @Test
    void aResumingRequestCarriesTheItemsToSkipAndDataSaysResumable() {
        RequestMessage resumed = request(RequestMessage.Streaming.OUTPUT, "{}").withServiceClass("gold")
                .resumingFrom(1L << 40);
        assertThat(flagsOf(resumed)).isEqualTo(WireFormat.FLAG_STREAM | WireFormat.FLAG_SERVICE_CLASS
                | WireFormat.FLAG_RESUME);
        assertThat(roundTrip(resumed)).usingRecursiveComparison().isEqualTo(resumed);
        assertThat(MessageEncoder.frameLength(resumed)).isEqualTo(encodedLength(resumed));
        StreamData resumable = new StreamData(7, new byte[] {'1'}, true);
        assertThat(flagsOf(resumable)).isEqualTo(WireFormat.FLAG_RESUMABLE);
        assertThat(roundTrip(resumable)).usingRecursiveComparison().isEqualTo(resumable);
        assertThat(flagsOf(new StreamData(7, new byte[] {'1'}))).isZero();
    }

    @Test
    void aRawItemSaysSoAndRoundTrips() throws Exception {
        StreamData raw = new StreamData(8, new byte[] {0, (byte) 0xff, 7}, true, true);
        assertThat(flagsOf(raw)).isEqualTo(WireFormat.FLAG_RESUMABLE | WireFormat.FLAG_RAW);
        assertThat(roundTrip(raw)).usingRecursiveComparison().isEqualTo(raw);
        com.fasterxml.jackson.databind.JavaType bytes = io.neptune.core.internal.json.Json.mapper()
                .constructType(byte[].class);
        com.fasterxml.jackson.databind.JavaType text = io.neptune.core.internal.json.Json.mapper()
                .constructType(String.class);
        assertThat(io.neptune.core.internal.stream.StreamItems.<byte[]>decode(raw, bytes))
                .containsExactly(0, (byte) 0xff, 7);
        assertThatThrownBy(() -> io.neptune.core.internal.stream.StreamItems.decode(raw, text))
                .hasMessageContaining("the item is raw bytes (flag 0x02), but the stream's items are");
        io.neptune.core.internal.stream.StreamItems.Encoded encoded =
                io.neptune.core.internal.stream.StreamItems.encode(new byte[] {1, 2});
        assertThat(encoded.raw()).isTrue();
        assertThat(encoded.bytes()).containsExactly(1, 2);
        assertThat(io.neptune.core.internal.stream.StreamItems.encode("x").raw()).isFalse();
        // a byte[] item that came as JSON (base64) still decodes
        StreamData json = new StreamData(8, "\"AP8H\"".getBytes(StandardCharsets.UTF_8));
        assertThat(io.neptune.core.internal.stream.StreamItems.<byte[]>decode(json, bytes))
                .containsExactly(0, (byte) 0xff, 7);
    }

    @Test
    void resumeIsRejectedOutsideAnOutputStreamOrWithoutItemsToSkip() {
        assertThatThrownBy(() -> request(RequestMessage.Streaming.NONE, "{}").resumingFrom(3))
                .hasMessageContaining("resumeFrom: 3 (expected: >= 0, and 0 unless the request opens an output stream)");
        assertThatThrownBy(() -> request(RequestMessage.Streaming.OUTPUT, "{}").resumingFrom(-1))
                .hasMessageContaining("resumeFrom: -1");
        ByteBuf plain = encode(request(RequestMessage.Streaming.NONE, "{}").withServiceClass("gold"));
        plain.setByte(FLAGS_OFFSET, WireFormat.FLAG_SERVICE_CLASS | WireFormat.FLAG_RESUME);
        assertRejected(plain, "flags: 0x9 (expected: 0x08, resume, only with 0x02, stream, and without 0x04");
        ByteBuf bidirectional = encode(request(RequestMessage.Streaming.BIDIRECTIONAL, ""));
        bidirectional.setByte(FLAGS_OFFSET, WireFormat.FLAG_STREAM | WireFormat.FLAG_STREAM_INPUT | WireFormat.FLAG_RESUME);
        assertRejected(bidirectional, "flags: 0xe (expected: 0x08, resume, only with 0x02, stream");
        RequestMessage resumed = request(RequestMessage.Streaming.OUTPUT, "{}").resumingFrom(5);
        ByteBuf zero = encode(resumed);
        zero.setLong(zero.writerIndex() - 4 - 2 - 8, 0); // the count sits before the payload's length and bytes
        assertRejected(zero, "resume from: 0 (expected: >= 1 with flag 0x08)");
        ByteBuf truncated = cut(resumed, (int) MessageEncoder.frameLength(resumed) + 4 - 6 - 8 + 3);
        assertRejected(truncated, "resume from");
    }

    @Test
    void anEmptyItemRoundTrips() {
        StreamData empty = new StreamData(1, new byte[0]);
        assertThat(roundTrip(empty)).usingRecursiveComparison().isEqualTo(empty);
    }

    @Test
    void streamInputWithoutTheStreamFlagIsRejected() {
        ByteBuf frame = encode(request(RequestMessage.Streaming.NONE, "{}"));
        frame.setByte(FLAGS_OFFSET, WireFormat.FLAG_STREAM_INPUT);
        assertRejected(frame, "flags: 0x4 (expected: 0x04, stream input, only with 0x02, stream)");
    }

    @Test
    void aBidirectionalRequestWithAPayloadIsRejected() {
        ByteBuf frame = encode(request(RequestMessage.Streaming.OUTPUT, "{}"));
        frame.setByte(FLAGS_OFFSET, WireFormat.FLAG_STREAM | WireFormat.FLAG_STREAM_INPUT);
        assertRejected(frame, "payload length: 2 (expected: 0 for a bidirectional stream");
    }

    @Test
    void flagsOnStreamFramesAreRejected() {
        for (Message message : List.of(new StreamData(1, new byte[1]), new StreamCredit(1, 1), StreamEnd.completed(1),
                new StreamCancel(1, "x"))) {
            ByteBuf frame = encode(message);
            frame.setByte(FLAGS_OFFSET, WireFormat.FLAG_STREAM_INPUT);
            String allowed = message instanceof StreamData ? "only 0x3" : "none";
            assertRejected(frame, "flags: 0x4 (expected: " + allowed + " for message type " + frame.getByte(TYPE_OFFSET)
                    + ")");
        }
    }

    @Test
    void zeroOrNegativeCreditIsRejected() {
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE}) {
            ByteBuf frame = encode(new StreamCredit(3, 1));
            frame.setInt(BODY_OFFSET, bad);
            assertRejected(frame, "credit: " + bad + " (expected: >= 1)");
        }
        assertThatThrownBy(() -> new StreamCredit(3, 0)).hasMessage("items: 0 (expected: >= 1)");
    }

    @Test
    void unknownEndStatusIsRejected() {
        ByteBuf frame = encode(StreamEnd.completed(3));
        frame.setByte(BODY_OFFSET, 99);
        assertRejected(frame, "status: 99 (expected: a known status code)");
    }

    @Test
    void trailingBytesAfterAnyStreamFrameAreRejected() {
        for (Message message : List.of(new StreamData(1, new byte[1]), new StreamCredit(1, 1), StreamEnd.completed(1),
                new StreamCancel(1, "x"))) {
            ByteBuf frame = encode(message);
            frame.writeByte(0);
            frame.setInt(0, frame.readableBytes() - 4);
            assertRejected(frame, "frame has 1 trailing bytes (expected: 0)");
        }
    }

    @Test
    void truncatedStreamFramesNameTheMissingField() {
        assertRejected(cut(new StreamData(1, new byte[8]), BODY_OFFSET + 2), "truncated frame at item");
        assertRejected(cut(new StreamCredit(1, 5), BODY_OFFSET + 3), "truncated frame at credit");
        assertRejected(cut(StreamEnd.completed(1), BODY_OFFSET), "truncated frame at status");
        assertRejected(cut(StreamEnd.failed(1, "why"), BODY_OFFSET + 3), "truncated frame at message");
        assertRejected(cut(new StreamCancel(1, "reason"), BODY_OFFSET + 1), "truncated frame at reason");
    }

    @Test
    void anItemLengthBeyondTheFrameIsRejected() {
        ByteBuf frame = encode(new StreamData(1, new byte[4]));
        frame.setInt(BODY_OFFSET, 5);
        assertRejected(frame, "item length: 5 (expected: 0..4)");
    }

    @Test
    void aCancelReasonOverTheNameLimitIsRejected() {
        ByteBuf frame = encode(new StreamCancel(1, "x"));
        frame.setShort(BODY_OFFSET, WireFormat.MAX_NAME_BYTES + 1);
        assertRejected(frame, "reason: 257 bytes (expected: <= 256)");
        assertThat(StreamCancel.of(1, "y".repeat(500)).reason()).hasSize(80);
    }

    // ---------------------------------------------------------------- helpers

    private static RequestMessage request(RequestMessage.Streaming streaming, String payload) {
        return new RequestMessage(9, "search", 1, "hits", AccessMode.READ, 1000, 0, RequestId.NONE,
                payload.getBytes(StandardCharsets.UTF_8)).withStreaming(streaming);
    }

    private int flagsOf(Message message) {
        ByteBuf frame = encode(message);
        try {
            return frame.getByte(FLAGS_OFFSET);
        } finally {
            frame.release();
        }
    }

    private long encodedLength(Message message) {
        ByteBuf frame = encode(message);
        try {
            return frame.readableBytes() - 4;
        } finally {
            frame.release();
        }
    }

    private Message roundTrip(Message sent) {
        assertThat(channel.writeOutbound(sent)).isTrue();
        ByteBuf encoded = channel.readOutbound();
        track(encoded);
        assertThat(channel.writeInbound(encoded)).isTrue();
        Message received = channel.readInbound();
        assertThat(channel.<Object>readInbound()).isNull();
        return received;
    }

    private static ByteBuf encode(Message message) {
        ByteBuf out = Unpooled.buffer();
        MessageEncoder.encode(message, out);
        return out;
    }

    /** The frame of {@code message} cut to {@code length} bytes (prefix included), with a matching prefix. */
    private ByteBuf cut(Message message, int length) {
        ByteBuf encoded = encode(message);
        try {
            ByteBuf cut = Unpooled.buffer().writeBytes(encoded, 0, length);
            cut.setInt(0, length - 4);
            return cut;
        } finally {
            encoded.release();
        }
    }

    private ByteBuf track(ByteBuf buf) {
        created.add(buf);
        return buf;
    }

    private void assertRejected(ByteBuf frame, String expectedMessage) {
        track(frame);
        EmbeddedChannel ch = newChannel();
        try {
            assertThatThrownBy(() -> ch.writeInbound(frame))
                    .isInstanceOf(DecoderException.class)
                    .hasMessageContaining(expectedMessage);
            assertThat(ch.<Object>readInbound()).isNull();
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
