package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.json.Json;
import java.time.Duration;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.View;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * How announcements and JGroups views meet in the yellow page, driven directly (no channel is
 * started): a member's message that JGroups delivers after the view that dropped it must not list
 * the dead node again, while a member that comes back in a later view (a healed split) is heard.
 */
class MembershipChannelTest {
    private static final NodeId SELF = NodeId.of("self");
    private static final NodeId DEAD = NodeId.of("dead");

    private final YellowPage page = new YellowPage(SELF, Duration.ofSeconds(5), System::nanoTime);
    private final MembershipChannel channel = new MembershipChannel(SELF, MembershipConfig.builder().build(),
            SecurityConfig.disabled(), page);
    private final Address self = UUID.randomUUID();
    private final Address dead = UUID.randomUUID();

    private BytesMessage announcement(Address from, long sequence) throws Exception {
        Announcement a = new Announcement(DEAD.value(), "127.0.0.1", 10_000, 10_001, 4242, 1, sequence, 0,
                List.of());
        BytesMessage message = new BytesMessage(null, Json.mapper().writeValueAsBytes(a));
        message.setSrc(from);
        return message;
    }

    @Test
    void aDeadMembersMessageDeliveredAfterTheViewThatDroppedItDoesNotListItAgain() throws Exception {
        channel.onView(View.create(self, 1, self, dead));
        channel.onMessage(announcement(dead, 1));
        assertThat(page.contains(DEAD)).isTrue();

        channel.onView(View.create(self, 2, self)); // dead was SIGKILLed
        assertThat(page.contains(DEAD)).isFalse();
        channel.onMessage(announcement(dead, 2)); // its last announcement, delivered late
        assertThat(page.contains(DEAD)).as("listed again by a late message").isFalse();
        channel.close();
    }

    @Test
    void aMemberBackInALaterViewIsHeardAgain() throws Exception {
        channel.onView(View.create(self, 1, self, dead));
        channel.onMessage(announcement(dead, 1));
        channel.onView(View.create(self, 2, self)); // a split
        channel.onView(View.create(self, 3, self, dead)); // healed: the same member, merged back
        channel.onMessage(announcement(dead, 2));
        assertThat(page.contains(DEAD)).isTrue();
        channel.close();
    }
}
