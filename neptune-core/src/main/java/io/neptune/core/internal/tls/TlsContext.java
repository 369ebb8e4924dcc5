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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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
 * its certificate. The files are checked at most once per {@link #RELOAD_CHECK_NANOS} as
 * connections open; when one changed, the context is built anew from them, so certificates and
 * trusted authorities rotate without a restart (connections already open keep theirs). A change
 * that does not load (a half-written file) keeps the previous context and is logged.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class TlsContext {
    private static final Logger logger = LoggerFactory.getLogger(TlsContext.class);

    /** How often, at most, the files are looked at for a change: once a second. */
    static final long RELOAD_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /** The config keys of the files, in the order of {@link #files}. */
    private static final List<String> KEYS = List.of("certificate", "key", "trust");

    private final boolean server;
    private final SecurityConfig config;
    private final List<Path> files;
    private final LongSupplier nanoTime;
    private volatile Loaded loaded;

    private record Loaded(SslContext context, List<FileTime> modified, long checkedAt) {}

    private TlsContext(boolean server, SecurityConfig config, LongSupplier nanoTime) {
        this.server = server;
        this.config = config;
        this.files = List.of(requireNonNull(config.certificate(), "certificate"), requireNonNull(config.key(), "key"),
                requireNonNull(config.trust(), "trust"));
        this.nanoTime = nanoTime;
        List<FileTime> modified = modified();
        this.loaded = new Loaded(build(), modified, nanoTime.getAsLong());
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
        Loaded now = loaded;
        long at = nanoTime.getAsLong();
        if (at - now.checkedAt() < RELOAD_CHECK_NANOS) {
            return now.context();
        }
        synchronized (this) {
            now = loaded;
            if (at - now.checkedAt() < RELOAD_CHECK_NANOS) {
                return now.context();
            }
            List<FileTime> modified;
            try {
                modified = modified();
            } catch (ConfigException e) {
                logger.warn("NEP-SEC-002 cannot read the TLS files, keeping the loaded ones: {}", e.getMessage());
                loaded = new Loaded(now.context(), now.modified(), at);
                return now.context();
            }
            if (modified.equals(now.modified())) {
                loaded = new Loaded(now.context(), now.modified(), at);
                return now.context();
            }
            try {
                loaded = new Loaded(build(), modified, at);
                logger.info("NEP-SEC-001 TLS files changed ({}): new connections use them", files);
            } catch (ConfigException e) {
                logger.warn("NEP-SEC-002 the TLS files changed but do not load, keeping the loaded ones: {}",
                        e.getMessage());
                loaded = new Loaded(now.context(), now.modified(), at);
            }
            return loaded.context();
        }
    }

    private List<FileTime> modified() {
        FileTime[] times = new FileTime[files.size()];
        for (int i = 0; i < times.length; i++) {
            try {
                times[i] = Files.getLastModifiedTime(files.get(i));
            } catch (IOException e) {
                throw new ConfigException("security." + KEYS.get(i), "'" + files.get(i) + "' cannot be read ("
                        + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
            }
        }
        return List.of(times);
    }

    private SslContext build() {
        Path certificate = files.get(0);
        Path key = files.get(1);
        Path trust = files.get(2);
        try {
            SslContextBuilder builder = server
                    ? SslContextBuilder.forServer(certificate.toFile(), key.toFile()).clientAuth(clientAuth())
                    // the node is checked by its principal (the SAN URI), not by the address it was reached at:
                    // a pod's address changes with every restart, its name does not
                    : SslContextBuilder.forClient().keyManager(certificate.toFile(), key.toFile())
                            .endpointIdentificationAlgorithm(null);
            return builder.trustManager(trust.toFile())
                    .sslProvider(provider(config.provider()))
                    .protocols(PROTOCOLS)
                    .build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException("security", "cannot load the certificate '" + certificate + "', key '" + key
                    + "' or trust '" + trust + "' (expected: PEM files, the key in PKCS#8): " + message(e));
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
}
