package io.neptune.server.cli;

import io.neptune.core.ConfigException;
import io.neptune.core.Principal;
import io.neptune.core.internal.config.ConfigNode;
import io.neptune.server.internal.security.CertificateAuthority;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code neptune certs}: a development certificate authority and the node, operator and client
 * certificates it issues, as the PEM files of a node's or client's TLS settings. docs/SECURITY.md
 * has the production steps with {@code openssl}.
 */
@Command(name = "certs", mixinStandardHelpOptions = true,
        description = "Make a development certificate authority (init) and issue node, operator and client"
                + " certificates from it (issue).",
        subcommands = {CertsCommand.Init.class, CertsCommand.Issue.class})
public final class CertsCommand implements Runnable {
    /** Where the CA lives unless {@code --dir} says otherwise: {@code neptune-certs} in the current directory. */
    static final String DEFAULT_DIRECTORY = "neptune-certs";

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code certs init}. */
    @Command(name = "init", mixinStandardHelpOptions = true,
            description = "Make a certificate authority: ca.pem (the trust file of nodes and clients) and"
                    + " ca-key.pem (readable by its owner only). An existing CA is never overwritten.")
    static final class Init implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--dir", paramLabel = "DIR", defaultValue = DEFAULT_DIRECTORY,
                description = "Directory of the CA, created if missing (default: ${DEFAULT-VALUE}).")
        Path dir;

        @Option(names = "--name", paramLabel = "NAME", defaultValue = "Neptune development CA",
                description = "Common name of the CA certificate (default: ${DEFAULT-VALUE}).")
        String name;

        @Option(names = "--validity", paramLabel = "TIME", defaultValue = "365d",
                description = "How long the CA certificate is valid, e.g. 365d (default: ${DEFAULT-VALUE}).")
        String validity;

        @Override
        public Integer call() {
            if (name.isBlank()) {
                throw new ConfigException("--name", "'" + name + "' (expected: not blank)");
            }
            CertificateAuthority ca = CertificateAuthority.create(dir, name, validity(validity));
            PrintWriter out = spec.commandLine().getOut();
            out.println("certificate authority '" + name + "', valid until " + ca.notAfter());
            out.println("  certificate: " + ca.certificate() + "  (the trust file of nodes and clients)");
            out.println("  key:         " + dir.resolve(CertificateAuthority.KEY_FILE) + "  (keep it private)");
            out.println("next: neptune certs issue --role node --name node-1" + dirOption(dir));
            out.flush();
            return 0;
        }
    }

    /** {@code certs issue}. */
    @Command(name = "issue", mixinStandardHelpOptions = true,
            description = "Issue a certificate for neptune://ROLE/NAME from the CA in DIR: ROLE-NAME.pem (the"
                    + " certificate followed by the CA's) and ROLE-NAME-key.pem (PKCS#8, readable by its owner"
                    + " only), replacing earlier ones.")
    static final class Issue implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--role", required = true, paramLabel = "ROLE",
                description = "node, operator or client.")
        String role;

        @Option(names = "--name", required = true, paramLabel = "NAME",
                description = "The holder's name: a node's id for role node, else a free label.")
        String name;

        @Option(names = "--dir", paramLabel = "DIR", defaultValue = DEFAULT_DIRECTORY,
                description = "Directory of the CA (default: ${DEFAULT-VALUE}).")
        Path dir;

        @Option(names = "--out", paramLabel = "DIR",
                description = "Directory to write the certificate and key to (default: the CA's directory).")
        Path out;

        @Option(names = "--validity", paramLabel = "TIME", defaultValue = "90d",
                description = "How long the certificate is valid, at most as long as the CA (default:"
                        + " ${DEFAULT-VALUE}).")
        String validity;

        @Override
        public Integer call() {
            Principal principal = principal(role, name);
            Duration duration = validity(validity);
            CertificateAuthority ca = CertificateAuthority.load(dir);
            CertificateAuthority.Issued issued = ca.issue(principal, Objects.requireNonNullElse(out, dir), duration);
            PrintWriter printer = spec.commandLine().getOut();
            printer.println(principal + ", serial " + issued.serial().toString(16).toUpperCase(Locale.ROOT)
                    + ", valid until " + issued.notAfter()
                    + (issued.notAfter().equals(ca.notAfter()) ? " (when the CA expires)" : ""));
            printer.println("  certificate: " + issued.certificate());
            printer.println("  key:         " + issued.key() + "  (keep it private)");
            printer.println("  trust:       " + ca.certificate());
            printer.flush();
            return 0;
        }
    }

    private static Principal principal(String role, String name) {
        Principal.Role parsed;
        try {
            parsed = Principal.Role.valueOf(role.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("--role", "'" + role + "' (expected: node, operator or client)");
        }
        try {
            return new Principal(parsed, name);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("--name", Objects.requireNonNullElse(e.getMessage(), e.toString())
                    .replaceFirst("^name: ", ""));
        }
    }

    private static Duration validity(String text) {
        Duration validity = ConfigNode.parseDuration("--validity", text);
        if (validity.isNegative() || validity.isZero()) {
            throw new ConfigException("--validity", "'" + text + "' (expected: > 0)");
        }
        return validity;
    }

    private static String dirOption(Path dir) {
        return dir.equals(Path.of(DEFAULT_DIRECTORY)) ? "" : " --dir " + dir;
    }
}
