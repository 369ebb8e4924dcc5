package io.neptune.core.internal.membership;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.testing.DecodedValues;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz test of the announcement decoder (docs/SECURITY.md, Fuzzing): a JGroups message's bytes read
 * as {@link MembershipChannel#onMessage} reads them. The contract: an {@link Announcement} whose
 * every non-nullable field is set, or an {@link IOException} (Jackson's, which wraps what the
 * records' constructors refuse) or the {@link IllegalArgumentException} of an invalid node id; the
 * channel drops those, and anything else would be a bug it only hides.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS) // Jazzer's per-input timeout when fuzzing
class AnnouncementFuzzTest {
    @FuzzTest(maxDuration = "5m")
    void announcements(byte[] input) {
        Announcement announcement;
        try {
            announcement = Json.mapper().readValue(input, 0, input.length, Announcement.class);
            NodeId.of(announcement.node());
        } catch (IOException | IllegalArgumentException refused) {
            return;
        }
        DecodedValues.assertNoUnexpectedNulls(announcement);
        announcement.adminUrl();
    }
}
