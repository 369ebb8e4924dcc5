package io.neptune.core.internal.tls;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.SecurityConfig;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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
 * ({@link ReloadingFiles}: looked at, at most once a second, when {@link #current()} is called), and
 * a JDK {@link SSLContext} that always uses the current material: new handshakes present the new
 * certificate and trust the new authorities without a restart, as {@link TlsContext} does for the
 * request port. Files that do not load (one half written, or a certificate whose key is not in
 * place yet) keep the previous material; that is logged once.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ReloadingKeyMaterial {
    private static final Logger logger = LoggerFactory.getLogger(ReloadingKeyMaterial.class);

    private final List<Path> paths;
    private final AtomicLong generations = new AtomicLong();
    private final ReloadingFiles<Generation> files;
    /** The current material, then the one before it; replaced under {@link #files}' lock. */
    private volatile List<Generation> recent;

    /** Material read at one time, numbered in the order read. */
    private record Generation(PemKeyMaterial material, long number) {}

    private ReloadingKeyMaterial(SecurityConfig config, LongSupplier nanoTime) {
        Path certificate = requireNonNull(config.certificate(), "certificate");
        Path key = requireNonNull(config.key(), "key");
        Path trust = requireNonNull(config.trust(), "trust");
        this.paths = List.of(certificate, key, trust);
        this.files = ReloadingFiles.read(PemKeyMaterial.files(certificate, key, trust), () -> new Generation(
                PemKeyMaterial.read(certificate, key, trust), generations.incrementAndGet()), new Listener(), nanoTime);
        this.recent = List.of(files.current());
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
        return files.current().material();
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

    /** The material an alias of {@link CurrentKeyManager} names, if it is still the current or the one before. */
    private @Nullable Generation generation(@Nullable String alias) {
        if (alias == null) {
            return null;
        }
        int colon = alias.indexOf(':');
        if (colon < 0) {
            return null;
        }
        long number;
        try {
            number = Long.parseLong(alias.substring(0, colon));
        } catch (NumberFormatException e) {
            return null;
        }
        for (Generation generation : recent) {
            if (generation.number() == number) {
                return generation;
            }
        }
        return null;
    }

    /** The alias of {@link CurrentKeyManager} for the alias {@code chosen} of {@code generation}'s key manager. */
    private static @Nullable String alias(Generation generation, @Nullable String chosen) {
        return chosen == null ? null : generation.number() + ":" + chosen;
    }

    private static String @Nullable [] aliases(Generation generation, String @Nullable [] found) {
        if (found == null) {
            return null;
        }
        String[] aliases = new String[found.length];
        for (int i = 0; i < found.length; i++) {
            aliases[i] = generation.number() + ":" + found[i];
        }
        return aliases;
    }

    private static String delegateAlias(String alias) {
        return alias.substring(alias.indexOf(':') + 1);
    }

    /** Logs the reloads and keeps {@link #recent}. */
    private final class Listener implements ReloadingFiles.ReloadListener<Generation> {
        @Override
        public void reloaded(Generation value) {
            recent = List.of(value, recent.get(0));
            logger.info("NEP-SEC-001 TLS files changed ({}): membership uses them from now on, certificate {}", paths,
                    value.material().summary());
        }

        @Override
        public void kept(ConfigException problem) {
            logger.warn("NEP-SEC-002 the TLS files changed but do not load; membership keeps the loaded ones until"
                    + " they do: {}", problem.getMessage());
        }
    }

    @Override
    public String toString() {
        return "ReloadingKeyMaterial" + paths;
    }

    /**
     * Presents the current certificate. The alias it chooses is {@code <generation>:<alias>}: the
     * chain and the key a handshake asks for by that alias come from the same material, even when
     * the files were read anew between its calls. It presents the certificate whichever authorities
     * the peer says it accepts (the JDK's key manager would present none when its authority is not
     * among them): there is only the one, and a peer that no longer trusts its authority (a CA
     * roll-over missed on this node) then refuses it by name, counted and logged ({@code NEP-SEC-030}),
     * instead of seeing no certificate at all.
     */
    private final class CurrentKeyManager extends X509ExtendedKeyManager {
        @Override
        public String @Nullable [] getClientAliases(String keyType, java.security.Principal @Nullable [] issuers) {
            Generation now = files.current();
            return aliases(now, now.material().keyManager().getClientAliases(keyType, null));
        }

        @Override
        public @Nullable String chooseClientAlias(String[] keyType, java.security.Principal @Nullable [] issuers,
                @Nullable Socket socket) {
            Generation now = files.current();
            return alias(now, now.material().keyManager().chooseClientAlias(keyType, null, socket));
        }

        @Override
        public String @Nullable [] getServerAliases(String keyType, java.security.Principal @Nullable [] issuers) {
            Generation now = files.current();
            return aliases(now, now.material().keyManager().getServerAliases(keyType, null));
        }

        @Override
        public @Nullable String chooseServerAlias(String keyType, java.security.Principal @Nullable [] issuers,
                @Nullable Socket socket) {
            Generation now = files.current();
            return alias(now, now.material().keyManager().chooseServerAlias(keyType, null, socket));
        }

        @Override
        public @Nullable String chooseEngineClientAlias(String[] keyType, java.security.Principal @Nullable [] issuers,
                @Nullable SSLEngine engine) {
            Generation now = files.current();
            return alias(now, now.material().keyManager().chooseEngineClientAlias(keyType, null, engine));
        }

        @Override
        public @Nullable String chooseEngineServerAlias(String keyType, java.security.Principal @Nullable [] issuers,
                @Nullable SSLEngine engine) {
            Generation now = files.current();
            return alias(now, now.material().keyManager().chooseEngineServerAlias(keyType, null, engine));
        }

        @Override
        public X509Certificate @Nullable [] getCertificateChain(@Nullable String alias) {
            Generation generation = generation(alias);
            return generation == null || alias == null ? null
                    : generation.material().keyManager().getCertificateChain(delegateAlias(alias));
        }

        @Override
        public @Nullable PrivateKey getPrivateKey(@Nullable String alias) {
            Generation generation = generation(alias);
            return generation == null || alias == null ? null
                    : generation.material().keyManager().getPrivateKey(delegateAlias(alias));
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
