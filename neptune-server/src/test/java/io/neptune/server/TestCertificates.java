package io.neptune.server;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.server.internal.security.CertificateAuthority;
import io.neptune.server.internal.security.CertificateAuthority.Issued;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A throwaway certificate authority for tests, in a directory of the test's, and the security
 * settings of any principal it certifies (each certificate issued once, at first use).
 */
public final class TestCertificates {
    private static final Duration VALIDITY = Duration.ofDays(2);

    private final Path directory;
    private final CertificateAuthority authority;
    private final Map<Principal, Issued> issued = new ConcurrentHashMap<>();

    private TestCertificates(Path directory, CertificateAuthority authority) {
        this.directory = directory;
        this.authority = authority;
    }

    /** A new authority named {@code name} in {@code directory}, which must not hold one yet. */
    public static TestCertificates create(Path directory, String name) {
        return new TestCertificates(directory, CertificateAuthority.create(directory, name, VALIDITY));
    }

    /**
     * The authority in {@code directory} if it holds one (a run that starts its cluster again on the
     * same directory), else a new one named {@code name} there.
     */
    public static TestCertificates loadOrCreate(Path directory, String name) {
        return Files.exists(directory.resolve(CertificateAuthority.CERTIFICATE_FILE))
                ? new TestCertificates(directory, CertificateAuthority.load(directory)) : create(directory, name);
    }

    /** The authority's certificate file: what peers trust. */
    public Path trust() {
        return authority.certificate();
    }

    /** The certificate and key of {@code principal}, issued at the first call. */
    public Issued issued(Principal principal) {
        return issued.computeIfAbsent(principal, p -> authority.issue(p, directory, VALIDITY));
    }

    /** Security settings with TLS {@code mode} for the holder of {@code principal}'s certificate. */
    public SecurityConfig config(TlsMode mode, Principal principal) {
        Issued files = issued(principal);
        return SecurityConfig.builder().tls(mode).identity(files.certificate(), files.key()).trust(trust()).build();
    }

    /** TLS required, as {@code principal}. */
    public SecurityConfig required(Principal principal) {
        return config(TlsMode.REQUIRED, principal);
    }

    /** TLS required, as node {@code node}. */
    public SecurityConfig node(String node) {
        return required(Principal.node(NodeId.of(node)));
    }
}
