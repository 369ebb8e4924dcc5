package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.AccessMode;
import io.neptune.core.ServiceClass;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The TCP frame codec through the real pipeline ({@link Frames#install}): round trips, and every
 * malformed frame failing with a {@link DecoderException} that names the problem, without leaks.
 */
class MessageCodecTest {
    private static final int MAX_FRAME = 64 * 1024;

    // Offsets in an encoded frame, length prefix included.
    private static final int TYPE_OFFSET = 4 + 2 + 1;
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

    /** An error answer longer than a frame is cut to fit, whatever its characters; a short one is left alone. */
    @Test
    void anErrorLongerThanAFrameIsCutToFit() {
        for (String unit : List.of("x", "é", "\uD83D\uDE00")) {
            for (int max : List.of(1024, 4096)) {
                ResponseMessage long_ = ResponseMessage.error(7, Status.METHOD_FAILED, unit.repeat(max));
                ResponseMessage fitted = long_.fittingError(max);
                assertThat(MessageEncoder.wireLength(fitted)).as(unit + " at " + max).isLessThanOrEqualTo(max);
                String text = new String(fitted.payload(), StandardCharsets.UTF_8);
                assertThat(text).startsWith(unit.repeat(10)).endsWith("cut to fit max-frame-size)")
                        .doesNotContain("\uFFFD");
                assertThat(fitted.requestId()).isEqualTo(7);
            }
        }
        ResponseMessage shortOne = ResponseMessage.error(7, Status.METHOD_FAILED, "short");
        assertThat(shortOne.fittingError(1024)).isSameAs(shortOne);
    }

    // ---------------------------------------------------------------- round trips

    @Test
    void requestRoundTripKeepsEveryField() {
        RequestMessage sent = new RequestMessage(Long.MAX_VALUE, "echo", 7, "sleep", AccessMode.WRITE, 1234,
                Long.MIN_VALUE + 1, RequestId.NONE, "{\"millis\":5}".getBytes(StandardCharsets.UTF_8));

        assertThat(roundTrip(sent)).isInstanceOf(RequestMessage.class).usingRecursiveComparison().isEqualTo(sent);
    }

    /** What a sender's check lets through ({@code wireLength <= max}) is exactly what the decoder accepts. */
    @Test
    void aFrameAtTheLimitByWireLengthIsDecodedAndOneByteMoreIsNot() {
        int base = (int) MessageEncoder.wireLength(sampleRequest());
        RequestMessage atLimit = requestOfWireLength(MAX_FRAME, base);
        assertThat(MessageEncoder.wireLength(atLimit)).isEqualTo(MAX_FRAME);
        assertThat(roundTrip(atLimit)).usingRecursiveComparison().isEqualTo(atLimit);

        RequestMessage over = requestOfWireLength(MAX_FRAME + 1, base);
        // by frameLength, which leaves the prefix out, this one "fits": senders checked that, and the receiver refused
        assertThat(MessageEncoder.frameLength(over)).isLessThanOrEqualTo(MAX_FRAME);
        EmbeddedChannel receiver = newChannel();
        try {
            assertThatThrownBy(() -> receiver.writeInbound(encode(over))).hasMessageContaining("exceeds " + MAX_FRAME);
        } finally {
            receiver.finishAndReleaseAll();
        }
    }

    private static RequestMessage requestOfWireLength(int wireLength, int baseWireLength) {
        byte[] payload = new byte[sampleRequest().payload().length + wireLength - baseWireLength];
        java.util.Arrays.fill(payload, (byte) 'x');
        RequestMessage sample = sampleRequest();
        return new RequestMessage(sample.requestId(), sample.service(), sample.partition(), sample.method(), sample.mode(),
                sample.timeoutMillis(), sample.minVersion(), sample.id(), payload);
    }

    @Test
    void aServiceClassRoundTripsAndIsSetInTheFlags() {
        RequestMessage sent = sampleRequest().withServiceClass("gold");
        ByteBuf encoded = encode(sent);
        try {
            assertThat(encoded.getByte(TYPE_OFFSET + 1 + 8)).isEqualTo((byte) WireFormat.FLAG_SERVICE_CLASS);
            assertThat(MessageEncoder.frameLength(sent)).isEqualTo(encoded.readableBytes() - 4);
        } finally {
            encoded.release();
        }

        assertThat(roundTrip(sent)).usingRecursiveComparison().isEqualTo(sent);
    }

    @Test
    void aRequestWithoutTheClassFlagIsOfTheDefaultClassAndEncodesAsBefore() {
        RequestMessage plain = sampleRequest();
        ByteBuf encoded = encode(plain);
        try {
            assertThat(encoded.getByte(TYPE_OFFSET + 1 + 8)).isZero();
        } finally {
            encoded.release();
        }
        // the frame of a client that predates classes: same bytes, default class
        assertThat(MessageEncoder.frameLength(plain)).isEqualTo(MessageEncoder.frameLength(
                new RequestMessage(plain.requestId(), plain.service(), plain.partition(), plain.method(), plain.mode(),
                        plain.timeoutMillis(), plain.minVersion(), plain.id(), plain.payload())));
        assertThat(((RequestMessage) roundTrip(plain)).serviceClass()).isEqualTo(ServiceClass.DEFAULT_NAME);
    }

    @Test
    void unknownFlagsAreRejected() {
        ByteBuf request = encode(sampleRequest());
        request.setByte(TYPE_OFFSET + 1 + 8, 0x10);
        assertRejected(request, "flags: 0x10 (expected: only 0xf for message type 1)");

        ByteBuf response = encode(sampleResponse());
        response.setByte(TYPE_OFFSET + 1 + 8, 0x02);
        assertRejected(response, "flags: 0x2 (expected: only 0x1 for message type 2)");
    }

    @Test
    void aResponseCarriesTheServingNodesLoadOnlyWhenItHasOne() {
        ResponseMessage plain = sampleResponse();
        ResponseMessage loaded = plain.withLoad(17);
        assertThat(encode(plain).getByte(TYPE_OFFSET + 1 + 8)).isZero();
        assertThat(encode(loaded).getByte(TYPE_OFFSET + 1 + 8)).isEqualTo((byte) WireFormat.FLAG_LOAD);
        assertThat(encode(loaded).readableBytes()).isEqualTo(encode(plain).readableBytes() + 4);
        assertThat(MessageEncoder.frameLength(loaded) + 4).isEqualTo(encode(loaded).readableBytes());
        Message decoded = MessageDecoder.decode(encode(loaded).skipBytes(4));
        assertThat(decoded).usingRecursiveComparison().isEqualTo(loaded);
        assertThat(((ResponseMessage) MessageDecoder.decode(encode(plain).skipBytes(4))).load()).isEqualTo(-1);
        ByteBuf negative = encode(loaded);
        negative.setInt(TYPE_OFFSET + 1 + 8 + 1 + 1 + 8, -5); // flags, status, version, then the load
        assertRejected(negative, "load: -5 (expected: >= 0 with flag 0x01)");
        assertThatThrownBy(() -> plain.withLoad(-2)).hasMessageContaining("load: -2");
    }

    @Test
    void aClassFlagWithoutAClassNameIsRejected() {
        ByteBuf frame = encode(sampleRequest()); // no name where the flag says one is: the payload is misread
        frame.setByte(TYPE_OFFSET + 1 + 8, WireFormat.FLAG_SERVICE_CLASS);
        assertThatThrownBy(() -> channel.writeInbound(frame)).isInstanceOf(DecoderException.class);
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void responseRoundTripKeepsEveryField() {
        for (Status status : Status.values()) {
            ResponseMessage sent = new ResponseMessage(-3, status, 99_999_999_999L, new byte[] {1, 2, 3});

            assertThat(roundTrip(sent)).as(status.name()).usingRecursiveComparison().isEqualTo(sent);
        }
    }

    @Test
    void emptyPayloadsRoundTrip() {
        RequestMessage request = new RequestMessage(1, "s", 0, "m", AccessMode.READ, 1, 0, RequestId.NONE, new byte[0]);
        ResponseMessage response = ResponseMessage.ok(1, 0, new byte[0]);

        assertThat(roundTrip(request)).usingRecursiveComparison().isEqualTo(request);
        assertThat(roundTrip(response)).usingRecursiveComparison().isEqualTo(response);
    }

    @Test
    void frameLengthIsWhatTheEncoderWrites() {
        RequestMessage request = new RequestMessage(9, "sérvice", 2, "méthod", AccessMode.READ, 100, 3, RequestId.random(),
                new byte[123]);
        ResponseMessage response = ResponseMessage.ok(9, 4, new byte[45]);
        for (Message message : List.of(request, response)) {
            ByteBuf encoded = encode(message);
            try {
                assertThat(MessageEncoder.frameLength(message)).as("%s", message).isEqualTo(encoded.readableBytes() - 4);
            } finally {
                encoded.release();
            }
        }
    }

    @Test
    void largePayloadRoundTripsWhenSplitOverManyReads() {
        byte[] payload = new byte[MAX_FRAME - 200];
        new Random(42).nextBytes(payload);
        RequestMessage sent = new RequestMessage(5, "bulk", 3, "put", AccessMode.WRITE, 60_000, 17, RequestId.NONE, payload);
        ByteBuf encoded = track(encode(sent));

        // Feed the frame in 1000-byte chunks: the frame decoder must reassemble it.
        while (encoded.isReadable()) {
            ByteBuf chunk = encoded.readRetainedSlice(Math.min(1000, encoded.readableBytes()));
            channel.writeInbound(chunk);
        }
        encoded.release();

        RequestMessage received = channel.readInbound();
        assertThat(received).usingRecursiveComparison().isEqualTo(sent);
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void unicodeNamesRoundTrip() {
        String service = "dienst-ß-服务-\uD83D\uDE80";
        String method = "é".repeat(WireFormat.MAX_NAME_BYTES / 2); // exactly MAX_NAME_BYTES in UTF-8
        RequestMessage sent = new RequestMessage(9, service, 1, method, AccessMode.READ, 10, 0, RequestId.NONE, new byte[] {42});

        RequestMessage received = (RequestMessage) roundTrip(sent);

        assertThat(received.service()).isEqualTo(service);
        assertThat(received.method()).isEqualTo(method);
    }

    @Test
    void namesDecodedAgainAreTheSameStringsAndNeverAnother() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 600; i++) { // more names than the table of recent ones has slots: they collide
            names.add("svc-" + i);
        }
        for (int round = 0; round < 2; round++) {
            for (String name : names) {
                RequestMessage received = (RequestMessage) roundTrip(new RequestMessage(1, name, 0, name + ".m",
                        AccessMode.READ, 10, 0, RequestId.NONE, new byte[0]));
                assertThat(received.service()).isEqualTo(name);
                assertThat(received.method()).isEqualTo(name + ".m");
            }
        }
        RequestMessage first = (RequestMessage) roundTrip(sampleRequest());
        RequestMessage second = (RequestMessage) roundTrip(sampleRequest());
        assertThat(second.service()).isSameAs(first.service());
        assertThat(second.method()).isSameAs(first.method());
    }

    @Test
    void anUnpairedSurrogateInANameIsWrittenAsTheLengthSays() {
        String service = "a\uD800b"; // not valid UTF-16: encoded as a replacement character, as String.getBytes does
        RequestMessage sent = new RequestMessage(3, service, 0, "m", AccessMode.READ, 10, 0, RequestId.NONE,
                new byte[] {7});
        ByteBuf encoded = encode(sent);
        try {
            assertThat(MessageEncoder.frameLength(sent)).isEqualTo(encoded.readableBytes() - 4);
        } finally {
            encoded.release();
        }

        RequestMessage received = (RequestMessage) roundTrip(sent);

        assertThat(received.service()).isEqualTo(new String(service.getBytes(StandardCharsets.UTF_8),
                StandardCharsets.UTF_8));
        assertThat(received.payload()).containsExactly(7);
    }

    @Test
    void twoFramesInOneBufferDecodeAsTwoMessages() {
        ResponseMessage first = ResponseMessage.ok(1, 1, new byte[] {1});
        ResponseMessage second = ResponseMessage.error(2, Status.OVERLOADED, "full");
        ByteBuf both = track(Unpooled.buffer());
        MessageEncoder.encode(first, both);
        MessageEncoder.encode(second, both);

        channel.writeInbound(both);

        assertThat(channel.<Object>readInbound()).usingRecursiveComparison().isEqualTo(first);
        ResponseMessage decoded = channel.readInbound();
        assertThat(decoded).usingRecursiveComparison().isEqualTo(second);
        assertThat(decoded.errorMessage()).isEqualTo("full");
    }

    @Test
    void encoderWritesTheLengthPrefixOfTheBody() {
        ByteBuf encoded = encode(ResponseMessage.ok(1, 2, new byte[10]));
        try {
            assertThat(encoded.getInt(0)).isEqualTo(encoded.readableBytes() - 4);
            assertThat(encoded.getShort(4)).isEqualTo(WireFormat.MAGIC);
            assertThat(encoded.getByte(6)).isEqualTo(WireFormat.VERSION_1);
            assertThat(encoded.getByte(TYPE_OFFSET)).isEqualTo(WireFormat.TYPE_RESPONSE);
        } finally {
            encoded.release();
        }
    }

    @Test
    void encoderRejectsNameLongerThanMaxNameBytes() {
        RequestMessage tooLong = new RequestMessage(1, "x".repeat(WireFormat.MAX_NAME_BYTES + 1), 0, "m",
                AccessMode.READ, 1, 0, RequestId.NONE, new byte[0]);
        ByteBuf out = Unpooled.buffer();
        try {
            assertThatThrownBy(() -> MessageEncoder.encode(tooLong, out))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("257 bytes (expected: <= 256)");
        } finally {
            out.release();
        }
    }

    // ---------------------------------------------------------------- malformed frames

    @Test
    void badMagicIsRejected() {
        ByteBuf frame = encode(sampleResponse());
        frame.setShort(4, 0x1234);

        assertRejected(frame, "magic: 0x1234 (expected: 0x4e50)");
    }

    @Test
    void badProtocolVersionIsRejected() {
        ByteBuf frame = encode(sampleRequest());
        frame.setByte(6, 3);

        assertRejected(frame, "protocol version: 3 (expected: 1..2)");
    }

    @Test
    void unknownMessageTypeIsRejected() {
        ByteBuf frame = encode(sampleResponse());
        frame.setByte(TYPE_OFFSET, 7);

        assertRejected(frame, "message type: 7 (expected: 1..6)");
    }

    @Test
    void pollDatagramTypeIsNotAFrameType() {
        ByteBuf frame = encode(sampleResponse());
        frame.setByte(TYPE_OFFSET, WireFormat.TYPE_POLL);

        assertRejected(frame, "message type: 10");
    }

    @Test
    void unknownStatusCodeIsRejected() {
        for (int code : new int[] {19, 20, 200, 255}) {
            ByteBuf frame = encode(sampleResponse());
            frame.setByte(BODY_OFFSET, code);

            assertRejected(frame, "status: " + code + " (expected: a known status code)");
        }
    }

    @Test
    void unknownAccessModeIsRejected() {
        ByteBuf frame = encode(new RequestMessage(1, "s", 0, "m", AccessMode.READ, 10, 0, RequestId.NONE, new byte[0]));
        int modeOffset = BODY_OFFSET + 2 + 1 + 4 + 2 + 1;
        frame.setByte(modeOffset, 2);

        assertRejected(frame, "mode: 2 (expected: 0..1)");
    }

    @Test
    void nonPositiveTimeoutIsRejected() {
        ByteBuf frame = encode(new RequestMessage(1, "s", 0, "m", AccessMode.READ, 10, 0, RequestId.NONE, new byte[0]));
        int timeoutOffset = BODY_OFFSET + 2 + 1 + 4 + 2 + 1 + 1;
        frame.setInt(timeoutOffset, 0);

        assertRejected(frame, "timeout: 0 ms (expected: >= 1)");
    }

    @Test
    void frameShorterThanTheHeaderIsRejected() {
        ByteBuf frame = frame(body -> body.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION_1));

        assertRejected(frame, "truncated frame at header: 3 bytes left (expected: >= 4)");
    }

    @Test
    void frameEndingInsideTheHeaderIsRejected() {
        ByteBuf frame = frame(body -> body.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION_1)
                .writeByte(WireFormat.TYPE_RESPONSE).writeInt(0));

        assertRejected(frame, "truncated frame at header");
    }

    @Test
    void truncatedResponseBodyNamesTheMissingField() {
        // Header + status + 4 of the 8 version bytes; the length prefix agrees with this short body.
        ByteBuf frame = truncate(encode(sampleResponse()), BODY_OFFSET + 1 + 4);

        assertRejected(frame, "truncated frame at version: 4 bytes left (expected: >= 8)");
    }

    @Test
    void truncatedRequestBodyNamesTheMissingField() {
        RequestMessage request = new RequestMessage(1, "service", 0, "method", AccessMode.READ, 10, 0, RequestId.NONE,
                new byte[0]);

        assertRejected(truncate(encode(request), BODY_OFFSET + 1), "truncated frame at service: 1 bytes left");
        assertRejected(truncate(encode(request), BODY_OFFSET + 2 + 3), "truncated frame at service: 3 bytes left"
                + " (expected: >= 7)");
        assertRejected(truncate(encode(request), BODY_OFFSET + 2 + 7 + 2), "truncated frame at partition");
        assertRejected(truncate(encode(request), BODY_OFFSET + 2 + 7 + 4 + 2 + 6), "truncated frame at mode");
        assertRejected(truncate(encode(request), BODY_OFFSET + 2 + 7 + 4 + 2 + 6 + 1 + 4 + 8 + 2),
                "truncated frame at request id: 2 bytes left (expected: >= 16)");
        assertRejected(truncate(encode(request), BODY_OFFSET + 2 + 7 + 4 + 2 + 6 + 1 + 4 + 8 + 16 + 2),
                "truncated frame at payload: 2 bytes left (expected: >= 4)");
    }

    @Test
    void payloadLengthBeyondTheFrameIsRejected() {
        ByteBuf frame = encode(ResponseMessage.ok(1, 1, new byte[5]));
        int payloadLengthOffset = BODY_OFFSET + 1 + 8;
        frame.setInt(payloadLengthOffset, 6);

        assertRejected(frame, "payload length: 6 (expected: 0..5)");
    }

    @Test
    void hugePayloadLengthIsRejectedWithoutAllocating() {
        ByteBuf frame = encode(ResponseMessage.ok(1, 1, new byte[5]));
        frame.setInt(BODY_OFFSET + 1 + 8, Integer.MAX_VALUE);

        assertRejected(frame, "payload length: " + Integer.MAX_VALUE + " (expected: 0..5)");
    }

    @Test
    void negativePayloadLengthIsRejected() {
        ByteBuf frame = encode(ResponseMessage.ok(1, 1, new byte[5]));
        frame.setInt(BODY_OFFSET + 1 + 8, -1);

        assertRejected(frame, "payload length: -1 (expected: 0..5)");
    }

    @Test
    void trailingBytesAreRejected() {
        ByteBuf valid = encode(sampleResponse());
        ByteBuf frame = track(Unpooled.buffer());
        frame.writeBytes(valid).writeBytes(new byte[] {7, 7, 7});
        valid.release();
        frame.setInt(0, frame.readableBytes() - 4);

        assertRejected(frame, "frame has 3 trailing bytes (expected: 0)");
    }

    @Test
    void nameLongerThanMaxNameBytesIsRejected() {
        int tooLong = WireFormat.MAX_NAME_BYTES + 1;
        ByteBuf frame = frame(body -> {
            header(body, WireFormat.TYPE_REQUEST);
            body.writeShort(tooLong).writeBytes(new byte[tooLong]);
            body.writeInt(0);
            body.writeShort(1).writeByte('m');
            body.writeByte(0).writeInt(10).writeLong(0).writeInt(0);
        });

        assertRejected(frame, "service: 257 bytes (expected: <= 256)");
    }

    @Test
    void methodNameLongerThanMaxNameBytesIsRejected() {
        ByteBuf frame = frame(body -> {
            header(body, WireFormat.TYPE_REQUEST);
            body.writeShort(1).writeByte('s');
            body.writeInt(0);
            body.writeShort(0xffff);
        });

        assertRejected(frame, "method: 65535 bytes (expected: <= 256)");
    }

    @Test
    void frameAboveTheMaxFrameSizeFailsAtOnce() {
        // Only the length prefix and a few bytes: the decoder must not wait for (or buffer) the body.
        ByteBuf prefix = track(Unpooled.buffer().writeInt(MAX_FRAME).writeShort(WireFormat.MAGIC));

        assertThatThrownBy(() -> channel.writeInbound(prefix))
                .isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("exceeds " + MAX_FRAME);
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void largestAllowedFrameIsAccepted() {
        // The limit counts the 4-byte length prefix too.
        int payload = MAX_FRAME - 4 - WireFormat.HEADER_BYTES - 1 - 8 - 4;
        ResponseMessage sent = ResponseMessage.ok(1, 1, new byte[payload]);
        ByteBuf frame = track(encode(sent));
        assertThat(frame.readableBytes()).isEqualTo(MAX_FRAME);

        channel.writeInbound(frame);

        assertThat(channel.<Object>readInbound()).usingRecursiveComparison().isEqualTo(sent);
    }

    @Test
    void lengthPrefixWithTheHighBitSetIsTooLongNotNegative() {
        // The prefix is unsigned on the wire: 0xffffffff is 4 GiB, refused at once like any oversize frame.
        ByteBuf prefix = track(Unpooled.buffer().writeInt(-1).writeInt(0));

        assertThatThrownBy(() -> channel.writeInbound(prefix))
                .isInstanceOf(TooLongFrameException.class)
                .hasMessageContaining("exceeds " + MAX_FRAME);
    }

    @Test
    void streamEndingInsideAFrameIsATruncatedFrame() {
        ByteBuf full = encode(sampleRequest());
        int frameLength = full.readableBytes();
        ByteBuf partial = track(Unpooled.buffer().writeBytes(full, 0, 20));
        full.release();

        assertThat(channel.writeInbound(partial)).as("nothing decodable yet").isFalse();

        assertThatThrownBy(channel::finish)
                .isInstanceOf(DecoderException.class)
                .hasMessage("truncated frame: the stream ended after 20 of " + frameLength + " bytes");
        assertThat(channel.<Object>readInbound()).isNull();
    }

    @Test
    void streamEndingInsideTheLengthPrefixIsATruncatedFrame() {
        ByteBuf partial = track(Unpooled.buffer().writeShort(0));

        channel.writeInbound(partial);

        assertThatThrownBy(channel::finish)
                .isInstanceOf(DecoderException.class)
                .hasMessage("truncated frame: the stream ended after 2 bytes");
    }

    @Test
    void streamEndingBetweenFramesIsClean() {
        ByteBuf frames = track(Unpooled.buffer());
        MessageEncoder.encode(sampleResponse(), frames);
        MessageEncoder.encode(sampleResponse(), frames);

        channel.writeInbound(frames);

        assertThat(channel.finish()).as("two messages decoded").isTrue();
        assertThat(channel.<Object>readInbound()).isNotNull();
        assertThat(channel.<Object>readInbound()).isNotNull();
    }

    @Test
    void encoderOutputHasNoLeakThroughThePipeline() {
        assertThat(channel.writeOutbound(sampleRequest())).isTrue();
        ByteBuf out = channel.readOutbound();
        assertThat(out.refCnt()).isEqualTo(1);
        out.release();
    }

    // ---------------------------------------------------------------- poll datagrams

    @Test
    void pollRequestRoundTrip() {
        Poll.Request sent = new Poll.Request(Long.MAX_VALUE, "echo-ü", 41);
        ByteBuf buf = Unpooled.buffer();
        try {
            Poll.encode(sent, buf);
            assertThat(Poll.decodeRequest(buf)).isEqualTo(sent);
            assertThat(buf.isReadable()).isFalse();
        } finally {
            buf.release();
        }
    }

    @Test
    void aPollThatNamesAClassGetsTheClassLoadAndOneThatDoesNotIsUnchanged() {
        ByteBuf buf = Unpooled.buffer();
        try {
            Poll.encode(new Poll.Request(3, "svc", 1, "gold"), buf);
            assertThat(Poll.decodeRequest(buf)).isEqualTo(new Poll.Request(3, "svc", 1, "gold"));
            buf.clear();
            Poll.encode(new Poll.Request(4, "svc", 1), buf);
            int plainLength = buf.readableBytes();
            Poll.Request plain = Poll.decodeRequest(buf);
            assertThat(plain.serviceClass()).isEqualTo(ServiceClass.DEFAULT_NAME);
            assertThat(plain.namesClass()).isFalse();
            assertThat(plainLength).as("as before classes").isEqualTo(2 + 1 + 1 + 8 + 2 + 3 + 4);

            buf.clear();
            Poll.encode(new Poll.Reply(3, 9, 5, 2), true, buf);
            assertThat(Poll.decodeReply(buf)).isEqualTo(new Poll.Reply(3, 9, 5, 2));
            buf.clear();
            Poll.encode(new Poll.Reply(4, 9, 5, 2), false, buf);
            assertThat(Poll.decodeReply(buf)).as("no class load on the wire: the whole load")
                    .isEqualTo(new Poll.Reply(4, 9, 5, 9));
        } finally {
            buf.release();
        }
    }

    @Test
    void pollReplyRoundTrip() {
        for (Poll.Reply sent : List.of(new Poll.Reply(1, 0, 0), new Poll.Reply(-5, -1, Long.MAX_VALUE),
                new Poll.Reply(7, Integer.MAX_VALUE, 3))) {
            ByteBuf buf = Unpooled.buffer();
            try {
                Poll.encode(sent, buf);
                assertThat(Poll.decodeReply(buf)).isEqualTo(sent);
            } finally {
                buf.release();
            }
        }
    }

    @Test
    void malformedPollsAreRejected() {
        assertPollRejected(buf -> Poll.encode(new Poll.Reply(1, 2, 3), buf), true, "datagram type: 11 (expected: 10 or 12)");
        assertPollRejected(buf -> Poll.encode(new Poll.Request(1, "s", 2), buf), false,
                "datagram type: 10 (expected: 11)");
        assertPollRejected(buf -> buf.writeShort(0x4E51).writeByte(1).writeByte(10), true,
                "magic: 0x4e51 (expected: 0x4e50)");
        assertPollRejected(buf -> buf.writeShort(WireFormat.MAGIC).writeByte(9).writeByte(10), true,
                "protocol version: 9 (expected: 1)");
        assertPollRejected(buf -> buf.writeShort(WireFormat.MAGIC), true, "truncated frame at header");
        assertPollRejected(buf -> buf.writeShort(WireFormat.MAGIC).writeByte(1).writeByte(10).writeInt(1), true,
                "truncated frame at pollId: 4 bytes left (expected: >= 8)");
        assertPollRejected(buf -> buf.writeShort(WireFormat.MAGIC).writeByte(1).writeByte(10).writeLong(1)
                .writeShort(300), true, "service: 300 bytes (expected: <= 256)");
        assertPollRejected(buf -> buf.writeShort(WireFormat.MAGIC).writeByte(1).writeByte(10).writeLong(1)
                .writeShort(1).writeByte('s').writeShort(0), true, "truncated frame at partition");
        assertPollRejected(buf -> buf.writeShort(WireFormat.MAGIC).writeByte(1).writeByte(11).writeLong(1)
                .writeInt(3), false, "truncated frame at reply: 12 bytes left (expected: >= 20)");
    }

    // ---------------------------------------------------------------- helpers

    private static RequestMessage sampleRequest() {
        return new RequestMessage(11, "echo", 2, "echo", AccessMode.READ, 500, 0, RequestId.NONE, "{}".getBytes(StandardCharsets.UTF_8));
    }

    private static ResponseMessage sampleResponse() {
        return ResponseMessage.ok(11, 4, "{}".getBytes(StandardCharsets.UTF_8));
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

    private ByteBuf encode(Message message) {
        ByteBuf out = Unpooled.buffer();
        MessageEncoder.encode(message, out);
        return out;
    }

    /** Cuts an encoded frame to its first {@code length} bytes (prefix included) and fixes the prefix. */
    private ByteBuf truncate(ByteBuf encoded, int length) {
        ByteBuf cut = track(Unpooled.buffer().writeBytes(encoded, 0, length));
        encoded.release();
        cut.setInt(0, length - 4);
        return cut;
    }

    /** A frame whose length prefix matches what {@code body} writes. */
    private ByteBuf frame(Consumer<ByteBuf> body) {
        ByteBuf frame = track(Unpooled.buffer());
        frame.writeInt(0);
        body.accept(frame);
        frame.setInt(0, frame.readableBytes() - 4);
        return frame;
    }

    private static void header(ByteBuf body, byte type) {
        body.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION_1).writeByte(type).writeLong(1).writeByte(0);
    }

    private ByteBuf track(ByteBuf buf) {
        created.add(buf);
        return buf;
    }

    /**
     * Feeds {@code frame} to a fresh pipeline and expects a {@link DecoderException} naming the
     * problem, no decoded message, and the frame released.
     */
    private void assertRejected(ByteBuf frame, String expectedMessage) {
        if (!created.contains(frame)) {
            track(frame);
        }
        EmbeddedChannel ch = newChannel();
        try {
            assertThatThrownBy(() -> ch.writeInbound(frame))
                    .isInstanceOf(DecoderException.class)
                    .hasMessageContaining(expectedMessage);
            assertThat(ch.<Object>readInbound()).isNull();
            assertThat(frame.refCnt()).as("refCnt after rejection").isZero();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    private static void assertPollRejected(Consumer<ByteBuf> writer, boolean asRequest, String expectedMessage) {
        ByteBuf buf = Unpooled.buffer();
        try {
            writer.accept(buf);
            assertThatThrownBy(() -> {
                if (asRequest) {
                    Poll.decodeRequest(buf);
                } else {
                    Poll.decodeReply(buf);
                }
            }).isInstanceOf(DecoderException.class).hasMessageContaining(expectedMessage);
        } finally {
            buf.release();
        }
    }
}
