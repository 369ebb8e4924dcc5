package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Membership settings: defaults, the builder round trip, and validation messages. */
class MembershipConfigTest {

    @Test
    void defaults() {
        MembershipConfig config = MembershipConfig.defaults();

        assertThat(config.stack()).isEqualTo(MembershipConfig.Stack.LOOPBACK);
        assertThat(config.cluster()).isEqualTo(MembershipConfig.DEFAULT_CLUSTER);
        assertThat(config.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isZero();
        assertThat(config.discoveryDirectory())
                .isEqualTo(MembershipConfig.defaultDiscoveryDirectory(MembershipConfig.DEFAULT_CLUSTER));
        assertThat(config.discoveryDirectory().getFileName()).hasToString("neptune-neptune");
        assertThat(config.announceInterval()).isEqualTo(MembershipConfig.DEFAULT_ANNOUNCE_INTERVAL);
        assertThat(config.expiry()).isEqualTo(MembershipConfig.DEFAULT_EXPIRY);
        assertThat(config.initialHosts()).isEmpty();
    }

    @Test
    void discoveryDirectoryDefaultsPerCluster() {
        assertThat(MembershipConfig.builder().cluster("blue").build().discoveryDirectory().getFileName())
                .hasToString("neptune-blue");
        Path explicit = Path.of("/some/where");
        assertThat(MembershipConfig.builder().cluster("blue").discoveryDirectory(explicit).build().discoveryDirectory())
                .isEqualTo(explicit);
    }

    @Test
    void toBuilderRoundTrips() {
        MembershipConfig config = MembershipConfig.builder()
                .stack(MembershipConfig.Stack.TCP)
                .cluster("c1")
                .bindAddress("127.0.0.2")
                .port(7800)
                .discoveryDirectory(Path.of("/tmp/x"))
                .multicastAddress("239.1.2.3")
                .multicastPort(5000)
                .initialHosts(List.of(new InetSocketAddress("127.0.0.1", 7800)))
                .announceInterval(Duration.ofMillis(300))
                .expiry(Duration.ofMillis(600))
                .build();

        assertThat(config.toBuilder().build()).isEqualTo(config);
    }

    @Test
    void initialHostsAreCopied() {
        List<InetSocketAddress> hosts = new ArrayList<>(List.of(new InetSocketAddress("127.0.0.1", 1)));
        MembershipConfig config = MembershipConfig.builder().initialHosts(hosts).build();
        hosts.clear();

        assertThat(config.initialHosts()).hasSize(1);
        assertThatThrownBy(() -> config.initialHosts().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void invalidValuesNameTheFieldTheValueAndTheExpectation() {
        assertInvalid(MembershipConfig.builder().cluster("two words"),
                "cluster: 'two words' (expected: 1-64 of letters, digits, '.', '_', '-')");
        assertInvalid(MembershipConfig.builder().cluster(""), "cluster: '' (expected:");
        assertInvalid(MembershipConfig.builder().port(-1), "port: -1 (expected: 0..65535)");
        assertInvalid(MembershipConfig.builder().port(65536), "port: 65536 (expected: 0..65535)");
        assertInvalid(MembershipConfig.builder().multicastPort(70000), "multicastPort: 70000 (expected: 0..65535)");
        assertInvalid(MembershipConfig.builder().announceInterval(Duration.ZERO),
                "announceInterval: PT0S (expected: > 0)");
        assertInvalid(MembershipConfig.builder().expiry(Duration.ofSeconds(-1)), "expiry: PT-1S (expected: > 0)");
        assertInvalid(MembershipConfig.builder().announceInterval(Duration.ofSeconds(1)).expiry(Duration.ofMillis(1999)),
                "expiry: PT1.999S (expected: >= 2 x announceInterval PT1S)");
    }

    @Test
    void expiryOfExactlyTwoIntervalsIsAccepted() {
        MembershipConfig config = MembershipConfig.builder()
                .announceInterval(Duration.ofSeconds(1)).expiry(Duration.ofSeconds(2)).build();

        assertThat(config.expiry()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void missingValuesNameTheField() {
        assertThatThrownBy(() -> MembershipConfig.builder().stack(null).build())
                .isInstanceOf(NullPointerException.class).hasMessage("stack");
        assertThatThrownBy(() -> MembershipConfig.builder().bindAddress(null).build())
                .isInstanceOf(NullPointerException.class).hasMessage("bindAddress");
        assertThatThrownBy(() -> MembershipConfig.builder().announceInterval(null).build())
                .isInstanceOf(NullPointerException.class).hasMessage("announceInterval");
    }

    private static void assertInvalid(MembershipConfig.Builder builder, String message) {
        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
    }
}
