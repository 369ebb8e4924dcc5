package io.neptune.server.internal.log;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.neptune.testing.DecodedValues;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz test of the REDO record decoder (docs/SECURITY.md, Fuzzing): the bytes of a log file, which a
 * torn write or a bad disk may have changed. The contract of {@link RecordCodec}: a record, or an
 * {@link IllegalArgumentException} saying what is wrong (a replica then cuts its log there), never
 * another exception. The CRC stops nearly every mutation at the frame header, so the bodies are also
 * decoded with the CRC that matches them.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS) // Jazzer's per-input timeout when fuzzing
class RecordCodecFuzzTest {
    /** {@code input} as a log file: frames one after another, from LSN 1. */
    @FuzzTest(maxDuration = "5m")
    void frames(byte[] input) {
        ByteBuffer frames = ByteBuffer.wrap(input);
        try {
            for (long lsn = 1; frames.hasRemaining(); lsn++) {
                DecodedValues.assertNoUnexpectedNulls(RecordCodec.decodeFrame(frames, lsn));
            }
        } catch (IllegalArgumentException refused) {
            // corrupt: the log ends before this frame
        }
    }

    /** {@code input} as one frame body whose header's CRC matches it. */
    @FuzzTest(maxDuration = "5m")
    void bodies(byte[] input) {
        CRC32C crc = new CRC32C();
        crc.update(input);
        try {
            DecodedValues.assertNoUnexpectedNulls(RecordCodec.decodeBody(ByteBuffer.wrap(input), (int) crc.getValue()));
        } catch (IllegalArgumentException refused) {
            // malformed body
        }
    }
}
