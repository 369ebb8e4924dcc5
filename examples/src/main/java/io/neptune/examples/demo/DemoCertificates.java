package io.neptune.examples.demo;

import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.server.internal.security.CertificateAuthority;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The demo's throwaway certificate authority, made in its data directory at the first start and
 * kept with the data: every node, and the gateway's operator node, gets a certificate from it, so
 * the demo runs with TLS required, as a production cluster would (docs/SECURITY.md).
 *
 * <p>Thread-safety: thread-safe.
 */
final class DemoCertificates {
    /** Long enough for a demo left running; the authority itself lives a year. */
    private static final Duration LEAF_VALIDITY = Duration.ofDays(30);
    private static final Duration AUTHORITY_VALIDITY = Duration.ofDays(365);

    private final Path directory;
    private final CertificateAuthority authority;
    private final Map<Principal, SecurityConfig> issued = new ConcurrentHashMap<>();

    private DemoCertificates(Path directory, CertificateAuthority authority) {
        this.directory = directory;
        this.authority = authority;
    }

    /** The authority in {@code directory}, made there first if there is none. */
    static DemoCertificates open(Path directory) {
        boolean exists = Files.exists(directory.resolve(CertificateAuthority.CERTIFICATE_FILE));
        CertificateAuthority authority = exists ? CertificateAuthority.load(directory)
                : CertificateAuthority.create(directory, "neptune-demo", AUTHORITY_VALIDITY);
        if (!exists) {
            System.out.printf("Made a throwaway certificate authority for the demo's TLS in %s%n",
                    directory.toAbsolutePath());
        }
        return new DemoCertificates(directory, authority);
    }

    /** TLS required, with a certificate naming {@code principal} (issued at the first call of this run). */
    SecurityConfig security(Principal principal) {
        return issued.computeIfAbsent(principal, p -> {
            CertificateAuthority.Issued files = authority.issue(p, directory, LEAF_VALIDITY);
            return SecurityConfig.builder().tls(SecurityConfig.TlsMode.REQUIRED)
                    .identity(files.certificate().toAbsolutePath(), files.key().toAbsolutePath())
                    .trust(authority.certificate().toAbsolutePath()).build();
        });
    }
}
