package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real channels on the loopback stack (127.0.0.1, ephemeral ports, discovery through a temporary
 * directory): a client that formed the group hands coordination to the first server that joins
 * ({@link ServersFirst}), and every member reads the server's flagged address off the wire.
 */
class ServerCoordinatesTest {
    private static final String CLUSTER = "servers-first";

    @TempDir
    Path dir;

    @Test
    void aServerJoiningAGroupAClientFormedBecomesTheCoordinatorOfEveryMember() throws Exception {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster(CLUSTER).build();
        try (JChannel client = JGroupsStacks.create(config).name("client");
                JChannel server = JGroupsStacks.create(config).name("server");
                JChannel tool = JGroupsStacks.create(config).name("tool")) {
            server.addAddressGenerator(ServersFirst.serverAddresses());
            client.connect(CLUSTER);
            assertThat(client.getView().getCoord()).as("alone, the client coordinates").isEqualTo(client.getAddress());

            server.connect(CLUSTER);
            awaitView(server.getAddress(), client, server);
            assertThat(ServersFirst.isServer(client.getView().getCoord()))
                    .as("the client read the server's address with its flag").isTrue();

            tool.connect(CLUSTER);
            awaitView(server.getAddress(), client, server, tool);
            assertThat(tool.getView().getMembers()).as("a later client joins behind the others")
                    .containsExactly(server.getAddress(), client.getAddress(), tool.getAddress());
        }
    }

    @Test
    void onlyAServerMembershipChannelJoinsWithAServerAddress() {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster(CLUSTER).build();
        try (MembershipChannel client = channel("client", config, MembershipChannel.Role.CLIENT);
                MembershipChannel server = channel("server", config, MembershipChannel.Role.SERVER)) {
            client.start();
            server.start();
            assertThat(ServersFirst.isServer(server.address())).as("the server's address").isTrue();
            assertThat(ServersFirst.isServer(client.address())).as("the client's address").isFalse();
            await().atMost(Duration.ofSeconds(30)).until(() -> client.viewSize() == 2 && server.viewSize() == 2);
        }
    }

    private static MembershipChannel channel(String node, MembershipConfig config, MembershipChannel.Role role) {
        NodeId id = NodeId.of(node);
        return new MembershipChannel(id, config, SecurityConfig.disabled(),
                new YellowPage(id, config.expiry(), System::nanoTime), role);
    }

    /** Waits until every one of {@code members} has a view of all of them, coordinated by {@code coordinator}. */
    private static void awaitView(Address coordinator, JChannel... members) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (JChannel member : members) {
                assertThat(member.getView().getMembers()).as("%s's view", member.getName())
                        .hasSize(members.length).first().isEqualTo(coordinator);
            }
        });
    }
}
