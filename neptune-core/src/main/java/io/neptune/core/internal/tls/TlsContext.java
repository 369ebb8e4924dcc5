package io.neptune.core.internal.tls;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS side of one {@link SecurityConfig}: makes an {@link SslHandler} for each new connection,
 * server or client, from the PEM files the config names, and reads a peer's {@link Principal} off
 * its certificate. The files are looked at, at most once a second, as connections open
 * ({@link ReloadingFiles}); when one changed, the context is built anew from them, so certificates
 * and trusted authorities rotate without a restart (connections already open keep theirs). Files
 * that do not load (one half written, or a certificate whose key is not in place yet) keep the
 * previous context; that is logged once.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class TlsContext {
    private static final Logger logger = LoggerFactory.getLogger(TlsContext.class);

    private static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private final boolean server;
    private final SecurityConfig config;
    private final ReloadingFiles<Built> files;

    /** A context and the certificate it presents, for the log. */
    private record Built(SslContext context, String certificate) {}

    private TlsContext(boolean server, SecurityConfig config, LongSupplier nanoTime) {
        this.server = server;
        this.config = config;
        Path certificate = requireNonNull(config.certificate(), "certificate");
        Path key = requireNonNull(config.key(), "key");
        Path trust = requireNonNull(config.trust(), "trust");
        this.files = ReloadingFiles.read(PemKeyMaterial.files(certificate, key, trust),
                () -> build(PemKeyMaterial.read(certificate, key, trust)), new Listener(), nanoTime);
    }

    /**
     * The server side of {@code config}, or empty when its TLS is disabled.
     *
     * @throws ConfigException if a file cannot be read or does not hold what it should
     */
    public static Optional<TlsContext> server(SecurityConfig config) {
        return config.isEnabled() ? Optional.of(new TlsContext(true, config, System::nanoTime)) : Optional.empty();
    }

    /**
     * The client side of {@code config}, or empty when its TLS is disabled.
     *
     * @throws ConfigException if a file cannot be read or does not hold what it should
     */
    public static Optional<TlsContext> client(SecurityConfig config) {
        return config.isEnabled() ? Optional.of(new TlsContext(false, config, System::nanoTime)) : Optional.empty();
    }

    /** A handler for a new connection accepted by a server. */
    public SslHandler newServerHandler(ByteBufAllocator alloc) {
        SslHandler handler = current().newHandler(alloc);
        handler.setHandshakeTimeout(config.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        return handler;
    }

    /** A handler for a new connection to {@code host:port}. */
    public SslHandler newClientHandler(ByteBufAllocator alloc, String host, int port) {
        SslHandler handler = current().newHandler(alloc, host, port);
        handler.setHandshakeTimeout(config.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        return handler;
    }

    /** The principal the peer's certificate names, if it presented one that names one. */
    public static Optional<Principal> peer(SslHandler handler) {
        SSLSession session = handler.engine().getSession();
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
        return chain.length > 0 && chain[0] instanceof X509Certificate leaf ? principal(leaf) : Optional.empty();
    }

    /** The first {@code neptune://} URI subject alternative name of {@code certificate}. */
    public static Optional<Principal> principal(X509Certificate certificate) {
        Collection<List<?>> names;
        try {
            names = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return Optional.empty();
        }
        if (names == null) {
            return Optional.empty();
        }
        for (List<?> name : names) {
            if (name.size() == 2 && Objects.equals(name.get(0), 6) && name.get(1) instanceof String uri) {
                Optional<Principal> principal = Principal.fromUri(uri);
                if (principal.isPresent()) {
                    return principal;
                }
            }
        }
        return Optional.empty();
    }

    /** The context new connections get now (built anew first if the files changed). */
    public SslContext current() {
        return files.current().context();
    }

    /** A context of {@code material}'s certificate, key and authorities. */
    private Built build(PemKeyMaterial material) {
        X509Certificate[] chain = material.chain().toArray(new X509Certificate[0]);
        try {
            SslContextBuilder builder = server
                    ? SslContextBuilder.forServer(material.key(), chain).clientAuth(clientAuth())
                    // the node is checked by its principal (the SAN URI), not by the address it was reached at:
                    // a pod's address changes with every restart, its name does not
                    : SslContextBuilder.forClient().keyManager(material.key(), chain)
                            .endpointIdentificationAlgorithm(null);
            return new Built(builder.trustManager(material.authorities().toArray(new X509Certificate[0]))
                    .sslProvider(provider(config.provider()))
                    .protocols(PROTOCOLS)
                    .build(), material.summary());
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException("security", "cannot build a TLS context of " + material + " (expected: PEM files,"
                    + " the key in PKCS#8): " + message(e));
        }
    }

    /**
     * The Netty provider for {@code provider}: OpenSSL (BoringSSL) where it loads when
     * {@link SecurityConfig.TlsProvider#AUTO}; a clear refusal where {@link SecurityConfig.TlsProvider#OPENSSL}
     * was asked for and does not load.
     */
    static SslProvider provider(SecurityConfig.TlsProvider provider) {
        return switch (provider) {
            case JDK -> SslProvider.JDK;
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new ConfigException("security.provider", "openssl, which does not load here ("
                            + message(OpenSsl.unavailabilityCause()) + "; expected: netty-tcnative-boringssl-static"
                            + " for this platform on the class path, or provider: jdk or auto)");
                }
                yield SslProvider.OPENSSL;
            }
        };
    }

    private static String message(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root + ")";
    }

    private ClientAuth clientAuth() {
        return switch (config.clientAuth()) {
            case REQUIRE -> ClientAuth.REQUIRE;
            case OPTIONAL -> ClientAuth.OPTIONAL;
            case NONE -> ClientAuth.NONE;
        };
    }

    /** The config this context serves. */
    public SecurityConfig config() {
        return config;
    }

    /** For tests: {@link #server} with its own clock. */
    static TlsContext server(SecurityConfig config, LongSupplier nanoTime) {
        return new TlsContext(true, config, nanoTime);
    }

    /** Logs the reloads. */
    private final class Listener implements ReloadingFiles.ReloadListener<Built> {
        @Override
        public void reloaded(Built value) {
            logger.info("NEP-SEC-001 TLS files changed ({}): new {} connections use them, certificate {}", files,
                    server ? "inbound" : "outbound", value.certificate());
        }

        @Override
        public void kept(ConfigException problem) {
            logger.warn("NEP-SEC-002 the TLS files changed but do not load; new {} connections keep the loaded ones"
                    + " until they do: {}", server ? "inbound" : "outbound", problem.getMessage());
        }
    }
}
