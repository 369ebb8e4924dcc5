package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class MembershipSecurityTest {
    private static final NodeId SELF = NodeId.of("node-1");

    private static SecurityConfig tls(TlsMode mode) {
        return SecurityConfig.builder().tls(mode).identity(Path.of("missing.pem"), Path.of("missing-key.pem"))
                .trust(Path.of("missing-ca.pem")).build();
    }

    @Test
    void theUdpStackWithTlsRequiredIsSecuredLikeTheOthers() {
        MembershipConfig udp = MembershipConfig.builder().stack(MembershipConfig.Stack.UDP).build();

        // no longer refused for the stack: it gets as far as the PEM files, as the TCP stacks do
        assertThatThrownBy(() -> MembershipSecurity.of(SELF, udp, tls(TlsMode.REQUIRED)))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("security.certificate: 'missing.pem'");
    }

    @Test
    void tlsDisabledSecuresNoMembership() {
        MembershipConfig loopback = MembershipConfig.defaults();
        MembershipConfig udp = MembershipConfig.builder().stack(MembershipConfig.Stack.UDP).build();

        assertThat(MembershipSecurity.of(SELF, loopback, SecurityConfig.disabled())).isEmpty();
        assertThat(MembershipSecurity.of(SELF, udp, SecurityConfig.disabled().toBuilder().insecure(true).build()))
                .isEmpty();
    }

    @Test
    void missingFilesAreAConfigErrorNamingTheKey() {
        for (TlsMode mode : new TlsMode[] {TlsMode.PERMISSIVE, TlsMode.REQUIRED}) {
            assertThatThrownBy(() -> MembershipSecurity.of(SELF, MembershipConfig.defaults(), tls(mode)))
                    .as("%s", mode).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("security.certificate: 'missing.pem'");
        }
    }
}
