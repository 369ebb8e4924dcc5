package io.neptune.core.internal.tls;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.SecurityConfig;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link PemKeyMaterial} of a {@link SecurityConfig}, read again when one of its files changed
 * (looked at, at most once per {@link #RELOAD_CHECK_NANOS}, when {@link #current()} is called), and
 * a JDK {@link SSLContext} that always uses the current material: new handshakes present the new
 * certificate and trust the new authorities without a restart, as {@link TlsContext} does for the
 * request port. A change that does not load (a half-written file) keeps the previous material and
 * is logged.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ReloadingKeyMaterial {
    private static final Logger logger = LoggerFactory.getLogger(ReloadingKeyMaterial.class);

    /** How often, at most, the files are looked at for a change: once a second. */
    static final long RELOAD_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The config keys of the files, in the order of {@link #files}. */
    private static final List<String> KEYS = List.of("certificate", "key", "trust");

    private final List<Path> files;
    private final LongSupplier nanoTime;
    private volatile Loaded loaded;

    private record Loaded(PemKeyMaterial material, List<FileTime> modified, long checkedAt) {}

    private ReloadingKeyMaterial(SecurityConfig config, LongSupplier nanoTime) {
        this.files = List.of(requireNonNull(config.certificate(), "certificate"), requireNonNull(config.key(), "key"),
                requireNonNull(config.trust(), "trust"));
        this.nanoTime = nanoTime;
        List<FileTime> modified = modified();
        this.loaded = new Loaded(read(), modified, nanoTime.getAsLong());
    }

    /**
     * The material of {@code config}, read now.
     *
     * @throws ConfigException if a file cannot be read or does not hold what it should
     * @throws IllegalArgumentException if TLS is disabled in {@code config} (it then names no files)
     */
    public static ReloadingKeyMaterial of(SecurityConfig config) {
        return of(config, System::nanoTime);
    }

    /** {@link #of(SecurityConfig)} with its own clock, for tests. */
    static ReloadingKeyMaterial of(SecurityConfig config, LongSupplier nanoTime) {
        if (!config.isEnabled()) {
            throw new IllegalArgumentException("security.tls: disabled (expected: permissive or required, with files)");
        }
        return new ReloadingKeyMaterial(config, nanoTime);
    }

    /** The material to use now (read anew first if a file changed). */
    public PemKeyMaterial current() {
        Loaded now = loaded;
        long at = nanoTime.getAsLong();
        if (at - now.checkedAt() < RELOAD_CHECK_NANOS) {
            return now.material();
        }
        synchronized (this) {
            now = loaded;
            if (at - now.checkedAt() < RELOAD_CHECK_NANOS) {
                return now.material();
            }
            PemKeyMaterial material = now.material();
            List<FileTime> modified = now.modified();
            try {
                List<FileTime> times = modified();
                if (!times.equals(modified)) {
                    material = read();
                    modified = times;
                    logger.info("NEP-SEC-001 TLS files changed ({}): membership uses them from now on", files);
                }
            } catch (ConfigException e) {
                logger.warn("NEP-SEC-002 the TLS files cannot be read or do not load, keeping the loaded ones: {}",
                        e.getMessage());
            }
            loaded = new Loaded(material, modified, at);
            return material;
        }
    }

    /**
     * A TLS 1.3/1.2 context whose handshakes use the {@link #current()} material; {@code refused} is
     * told of every peer certificate chain the trust manager refuses, with a description of the peer
     * (its address if known, and its certificate's subject and principal); the handshake then fails.
     */
    public SSLContext sslContext(BiConsumer<String, CertificateException> refused) {
        requireNonNull(refused, "refused");
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {keyManager()}, new TrustManager[] {new CurrentTrustManager(refused)}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK offers no TLS context", e);
        }
    }

    /** The key manager of {@link #sslContext}: it presents the current certificate. */
    X509ExtendedKeyManager keyManager() {
        return new CurrentKeyManager();
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

    private PemKeyMaterial read() {
        return PemKeyMaterial.read(files.get(0), files.get(1), files.get(2));
    }

    @Override
    public String toString() {
        return "ReloadingKeyMaterial" + files;
    }

    /** Presents the current certificate. */
    private final class CurrentKeyManager extends X509ExtendedKeyManager {
        private X509ExtendedKeyManager delegate() {
            return current().keyManager();
        }

        @Override
        public String @Nullable [] getClientAliases(String keyType, java.security.Principal @Nullable [] issuers) {
            return delegate().getClientAliases(keyType, issuers);
        }

        @Override
        public @Nullable String chooseClientAlias(String[] keyType, java.security.Principal @Nullable [] issuers,
                @Nullable Socket socket) {
            return delegate().chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String @Nullable [] getServerAliases(String keyType, java.security.Principal @Nullable [] issuers) {
            return delegate().getServerAliases(keyType, issuers);
        }

        @Override
        public @Nullable String chooseServerAlias(String keyType, java.security.Principal @Nullable [] issuers,
                @Nullable Socket socket) {
            return delegate().chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public X509Certificate @Nullable [] getCertificateChain(String alias) {
            return delegate().getCertificateChain(alias);
        }

        @Override
        public @Nullable PrivateKey getPrivateKey(String alias) {
            return delegate().getPrivateKey(alias);
        }

        @Override
        public @Nullable String chooseEngineClientAlias(String[] keyType, java.security.Principal @Nullable [] issuers,
                @Nullable SSLEngine engine) {
            return delegate().chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public @Nullable String chooseEngineServerAlias(String keyType, java.security.Principal @Nullable [] issuers,
                @Nullable SSLEngine engine) {
            return delegate().chooseEngineServerAlias(keyType, issuers, engine);
        }
    }

    /** Trusts the current authorities and reports what it refuses. */
    private final class CurrentTrustManager extends X509ExtendedTrustManager {
        private final BiConsumer<String, CertificateException> refused;

        CurrentTrustManager(BiConsumer<String, CertificateException> refused) {
            this.refused = refused;
        }

        /** One trust check against the current material. */
        private interface Check {
            void run(X509ExtendedTrustManager manager) throws CertificateException;
        }

        private void check(X509Certificate[] chain, @Nullable Object peer, Check check) throws CertificateException {
            try {
                check.run(current().trustManager());
            } catch (CertificateException e) {
                // counted and logged (rate-limited) by the owner; the handshake fails with the exception
                refused.accept(describe(chain, peer), e);
                throw e;
            }
        }

        private String describe(X509Certificate[] chain, @Nullable Object peer) {
            String where = peer instanceof Socket socket ? String.valueOf(socket.getRemoteSocketAddress())
                    : peer instanceof SSLEngine engine ? engine.getPeerHost() + ":" + engine.getPeerPort() : "a peer";
            if (chain.length == 0) {
                return where + " without a certificate";
            }
            return where + " presenting '" + chain[0].getSubjectX500Principal() + "' ("
                    + TlsContext.principal(chain[0]).map(Object::toString).orElse("no neptune:// name") + ")";
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, null, m -> m.checkClientTrusted(chain, authType));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, null, m -> m.checkServerTrusted(chain, authType));
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, @Nullable Socket socket)
                throws CertificateException {
            check(chain, socket, m -> m.checkClientTrusted(chain, authType, socket));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, @Nullable Socket socket)
                throws CertificateException {
            check(chain, socket, m -> m.checkServerTrusted(chain, authType, socket));
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, @Nullable SSLEngine engine)
                throws CertificateException {
            check(chain, engine, m -> m.checkClientTrusted(chain, authType, engine));
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, @Nullable SSLEngine engine)
                throws CertificateException {
            check(chain, engine, m -> m.checkServerTrusted(chain, authType, engine));
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return current().trustManager().getAcceptedIssuers();
        }
    }
}
