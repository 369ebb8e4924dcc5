package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's own announcement does not come back to it through the group. The node puts it in its own
 * yellow page directly ({@code AvailabilityPublisher}); a copy looped back by JGroups would only be
 * parsed again and, with TLS, have its signature checked again: one ECDSA verification in every
 * {@code n} a node makes, for nothing.
 */
class OwnAnnouncementTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");

    @TempDir
    Path dir;

    @Test
    void aNodeHearsTheOthersAnnouncementsButNotItsOwn() {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster("own-announcement").build();
        YellowPage pageOfA = new YellowPage(A, Duration.ofSeconds(30), System::nanoTime);
        YellowPage pageOfB = new YellowPage(B, Duration.ofSeconds(30), System::nanoTime);
        try (MembershipChannel a = new MembershipChannel(A, config, SecurityConfig.disabled(), pageOfA);
                MembershipChannel b = new MembershipChannel(B, config, SecurityConfig.disabled(), pageOfB)) {
            a.start();
            b.start();
            // Each publishes until the other heard it; a's own copies, were they looped back, would reach a
            // long before b's reach it over a socket.
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                a.publish(announcement(A, 1));
                b.publish(announcement(B, 1));
                return pageOfA.contains(B) && pageOfB.contains(A);
            });
            assertThat(pageOfA.contains(A)).as("a's page holds a's announcement, looped back by the group").isFalse();
            assertThat(pageOfB.contains(B)).as("b's page holds b's announcement, looped back by the group").isFalse();
        }
    }

    private static Announcement announcement(NodeId node, long sequence) {
        return new Announcement(node.value(), "127.0.0.1", 10_000, 10_001, 4242, 1, sequence, 0, List.of());
    }
}
