package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.MembershipConfig;
import java.net.InetAddress;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.PING;
import org.jgroups.protocols.UDP;
import org.junit.jupiter.api.Test;

/** Checks the stacks as built, without connecting them: nothing is sent. */
class JGroupsStacksTest {
    @Test
    void udpStackBindsToTheGivenAddressAndKeepsMulticastOnTheLocalSubnet() throws Exception {
        MembershipConfig config = MembershipConfig.builder()
                .stack(MembershipConfig.Stack.UDP)
                .bindAddress("127.0.0.1")
                .multicastAddress("239.8.8.9")
                .multicastPort(45599)
                .build();
        try (JChannel channel = JGroupsStacks.create(config)) {
            UDP udp = (UDP) channel.getProtocolStack().getTransport();
            assertThat(udp.getBindAddress()).isEqualTo(InetAddress.getByName("127.0.0.1"));
            assertThat(udp.getBindPort()).isZero();
            assertThat(udp.getMulticastAddress()).isEqualTo(InetAddress.getByName("239.8.8.9"));
            assertThat(udp.getMulticastPort()).isEqualTo(45599);
            assertThat(udp.supportsMulticasting()).isTrue();
            assertThat(udp.getIpTTL()).as("ip_ttl: multicast stays on the local subnet").isEqualTo(1);
            PING ping = channel.getProtocolStack().findProtocol(PING.class);
            assertThat(ping).as("multicast discovery").isNotNull();
            FD_SOCK2 fdSock = channel.getProtocolStack().findProtocol(FD_SOCK2.class);
            assertThat(fdSock.getBindAddress()).isEqualTo(InetAddress.getByName("127.0.0.1"));
        }
    }

    @Test
    void defaultMulticastGroupIsOrganizationLocal() {
        MembershipConfig config = MembershipConfig.defaults();
        assertThat(config.multicastAddress()).isEqualTo("239.8.8.8");
        assertThat(config.multicastPort()).isEqualTo(45588);
    }
}
