package io.neptune.examples.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AccessPolicyTest {
    private static final String ADMIN = "admin-token-0123456789";
    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 8080);

    @Test
    void parsesHostsWithAndWithoutPorts() {
        assertThat(AccessPolicy.parse("LocalHost:8080", 80)).isEqualTo(new AccessPolicy.HostPort("localhost", 8080));
        assertThat(AccessPolicy.parse("example.com", 443)).isEqualTo(new AccessPolicy.HostPort("example.com", 443));
        assertThat(AccessPolicy.parse("[::1]:8080", 80)).isEqualTo(new AccessPolicy.HostPort("[::1]", 8080));
        assertThat(AccessPolicy.parse("[::1]", 80)).isEqualTo(new AccessPolicy.HostPort("[::1]", 80));
        for (String bad : new String[] {"", ":80", "a:", "a:x", "a:70000", "::1", "a@b:80", "a/b", "[::1"}) {
            assertThat(AccessPolicy.parse(bad, 80)).as(bad).isNull();
        }
    }

    @Test
    void tokensMustBeLongAndPrintable() {
        assertThatThrownBy(() -> AccessPolicy.checkToken("adminToken", "short"))
                .hasMessage("adminToken: 5 characters (expected: >= 16)");
        assertThatThrownBy(() -> AccessPolicy.checkToken("adminToken", "with a space inside it"))
                .hasMessage("adminToken: a character at index 4 (expected: printable ASCII without spaces)");
        assertThatThrownBy(() -> AccessPolicy.of("127.0.0.1", ADMIN, Map.of(ADMIN, "gold"), List.of(), true, false))
                .hasMessageContaining("userToken");
    }

    @Test
    void aConfiguredHostIsServedAndAWildcardBindIsNoName() {
        AccessPolicy policy = AccessPolicy.of("0.0.0.0", ADMIN, Map.of(), List.of("gw.example", "proxy.example:443"),
                true, false);
        assertThat(admitted(policy, "gw.example:8080")).isTrue();
        assertThat(admitted(policy, "gw.example:9090")).isFalse();
        assertThat(admitted(policy, "proxy.example")).isFalse(); // port 80
        assertThat(admitted(policy, "proxy.example:443")).isTrue();
        assertThat(admitted(policy, "0.0.0.0:8080")).isFalse();
        assertThat(admitted(policy, "127.0.0.2:8080")).as("loopback").isTrue();
        assertThat(policy.toString()).doesNotContain(ADMIN);
    }

    private static boolean admitted(AccessPolicy policy, String host) {
        Map<String, String> headers = Map.of("Host", host);
        return policy.admit("GET", List.of("admin", "cluster"), headers::get, LOCAL)
                instanceof AccessPolicy.Admission.Admitted;
    }
}
