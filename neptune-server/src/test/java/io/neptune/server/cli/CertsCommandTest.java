package io.neptune.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.Principal;
import io.neptune.core.internal.tls.TlsContext;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code neptune certs init} and {@code issue}, run in-process as the launcher runs them. */
class CertsCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void initThenIssueWritesTheCaAndACertificateForThePrincipal() throws Exception {
        Path ca = dir.resolve("ca");
        Path nodeDir = dir.resolve("node-1");

        assertThat(run("certs", "init", "--dir", ca.toString(), "--name", "Test CA", "--validity", "30d"))
                .as(err.toString()).isZero();
        assertThat(output()).contains(ca.resolve("ca.pem").toString(), ca.resolve("ca-key.pem").toString(),
                "Test CA");
        assertThat(read(ca.resolve("ca.pem")).getNotAfter().toInstant())
                .isBetween(Instant.now().plus(Duration.ofDays(29)), Instant.now().plus(Duration.ofDays(30)));

        assertThat(run("certs", "issue", "--role", "node", "--name", "node-1", "--dir", ca.toString(), "--out",
                nodeDir.toString(), "--validity", "2d")).as(err.toString()).isZero();

        X509Certificate leaf = read(nodeDir.resolve("node-node-1.pem"));
        assertThat(TlsContext.principal(leaf)).contains(new Principal(Principal.Role.NODE, "node-1"));
        assertThat(leaf.getNotAfter().toInstant())
                .isBetween(Instant.now().plus(Duration.ofDays(2)).minusSeconds(60),
                        Instant.now().plus(Duration.ofDays(2)));
        assertThat(nodeDir.resolve("node-node-1-key.pem")).exists();
        assertThat(output()).contains("neptune://node/node-1", nodeDir.resolve("node-node-1.pem").toString(),
                nodeDir.resolve("node-node-1-key.pem").toString(),
                leaf.getSerialNumber().toString(16).toUpperCase(Locale.ROOT),
                leaf.getNotAfter().toInstant().toString());
    }

    @Test
    void issueWritesBesideTheCaUnlessToldOtherwiseAndTakesTheRoleInAnyCase() throws Exception {
        assertThat(run("certs", "init", "--dir", dir.toString())).isZero();

        assertThat(run("certs", "issue", "--role", "OPERATOR", "--name", "alice", "--dir", dir.toString()))
                .as(err.toString()).isZero();

        X509Certificate leaf = read(dir.resolve("operator-alice.pem"));
        assertThat(TlsContext.principal(leaf)).contains(new Principal(Principal.Role.OPERATOR, "alice"));
        assertThat(leaf.getNotAfter().toInstant()).isAfter(Instant.now().plus(Duration.ofDays(89)));
    }

    @Test
    void initRefusesToOverwriteACa() throws Exception {
        assertThat(run("certs", "init", "--dir", dir.toString())).isZero();
        String before = Files.readString(dir.resolve("ca.pem"));

        assertThat(run("certs", "init", "--dir", dir.toString())).isEqualTo(2);

        assertThat(err.toString()).startsWith("neptune: " + dir.resolve("ca.pem")).contains("exists");
        assertThat(Files.readString(dir.resolve("ca.pem"))).isEqualTo(before);
    }

    @Test
    void issueWithoutACaNamesTheMissingFile() {
        assertThat(run("certs", "issue", "--role", "client", "--name", "shop", "--dir", dir.toString())).isEqualTo(2);

        assertThat(err.toString()).startsWith("neptune: " + dir.resolve("ca.pem") + ": missing");
    }

    @Test
    void badOptionsAreOneLineErrorsNamingTheOption() {
        assertThat(run("certs", "init", "--dir", dir.toString(), "--validity", "90")).isEqualTo(2);
        assertThat(err.toString()).contains("neptune: --validity: '90' (expected: a duration");
        assertThat(run("certs", "init", "--dir", dir.toString(), "--validity", "0d")).isEqualTo(2);
        assertThat(err.toString()).contains("neptune: --validity: '0d' (expected: > 0)");
        assertThat(dir.resolve("ca.pem")).doesNotExist();

        assertThat(run("certs", "init", "--dir", dir.toString())).isZero();
        assertThat(run("certs", "issue", "--role", "admin", "--name", "x", "--dir", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("neptune: --role: 'admin' (expected: node, operator or client)");
        assertThat(run("certs", "issue", "--role", "node", "--name", "a/b", "--dir", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("neptune: --name: 'a/b' (expected: 1 to 128 of letters");
        assertThat(run("certs", "issue", "--name", "x", "--dir", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("--role");
    }

    private int run(String... args) {
        CommandLine commandLine = new CommandLine(new NeptuneCli()).setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true));
        return NeptuneCli.execute(commandLine, args);
    }

    private String output() {
        return out.toString();
    }

    private static X509Certificate read(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }
}
