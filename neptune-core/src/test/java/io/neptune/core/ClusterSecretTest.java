package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster secret: where it may come from, what is refused, the key it derives, and that nothing prints it. */
class ClusterSecretTest {
    private static final String SECRET = "s3cr3t-0123456789abcdef-never-printed";

    @TempDir
    Path directory;

    @Test
    void aFileReadableByItsOwnerOnlyGivesTheSecretTrimmed() throws IOException {
        Path file = secretFile("secret", "  " + SECRET + "\n", "rw-------");
        Path sameBytes = secretFile("same-bytes", SECRET, "r--------");

        ClusterSecret secret = ClusterSecret.fromFile(file);

        assertThat(secret.file()).contains(file);
        assertThat(secret).as("read again").isEqualTo(ClusterSecret.fromFile(file));
        assertThat(secret).as("another file").isNotEqualTo(ClusterSecret.fromFile(sameBytes));
        assertThat(secret.deriveKey("a")).as("white space around the secret is not part of it")
                .isEqualTo(ClusterSecret.fromFile(sameBytes).deriveKey("a"));
    }

    @Test
    void aFileThatGroupOrOthersMayReadIsRefusedNamingTheKey() throws IOException {
        for (String permissions : new String[] {"rw-r--r--", "rw-r-----", "rw----r--", "rw--w----"}) {
            Path file = secretFile("secret-" + permissions, SECRET, permissions);
            assertThatThrownBy(() -> ClusterSecret.fromFile(file)).as(permissions)
                    .isInstanceOfSatisfying(ConfigException.class,
                            e -> assertThat(e.key()).isEqualTo("security.cluster-secret-file"))
                    .hasMessageContaining("security.cluster-secret-file: '" + file + "' has permissions " + permissions)
                    .hasMessageContaining("chmod 600")
                    .hasMessageNotContaining(SECRET);
        }
    }

    @Test
    void aShortSecretIsRefusedNamingTheKey() throws IOException {
        Path file = secretFile("short", "fifteen-bytes!!\n", "rw-------");
        assertThatThrownBy(() -> ClusterSecret.fromFile(file))
                .isInstanceOfSatisfying(ConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("security.cluster-secret-file"))
                .hasMessageContaining("holds 15 bytes (expected: >= 16");
        assertThat(ClusterSecret.fromFile(secretFile("sixteen", "sixteen-bytes!!!", "rw-------"))).isNotNull();
    }

    @Test
    void aMissingFileIsRefusedNamingTheKey() {
        Path missing = directory.resolve("missing");
        assertThatThrownBy(() -> ClusterSecret.fromFile(missing))
                .isInstanceOfSatisfying(ConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("security.cluster-secret-file"))
                .hasMessageContaining("'" + missing + "' cannot be read (NoSuchFileException");
    }

    @Test
    void theEnvironmentVariableIsTheAlternative() {
        assertThat(ClusterSecret.fromEnvironment(Map.of())).isEmpty();
        ClusterSecret secret = ClusterSecret.fromEnvironment(Map.of("NEPTUNE_CLUSTER_SECRET", SECRET + "\n"))
                .orElseThrow();
        assertThat(secret.file()).isEmpty();
        assertThat(secret).isEqualTo(ClusterSecret.fromEnvironment(Map.of("NEPTUNE_CLUSTER_SECRET", SECRET))
                .orElseThrow());
        assertThatThrownBy(() -> ClusterSecret.fromEnvironment(Map.of("NEPTUNE_CLUSTER_SECRET", "short")))
                .isInstanceOfSatisfying(ConfigException.class,
                        e -> assertThat(e.key()).isEqualTo("NEPTUNE_CLUSTER_SECRET"))
                .hasMessageContaining("5 bytes (expected: >= 16");
    }

    @Test
    void neitherTheSecretNorTheSecurityConfigPrintsIt() throws IOException {
        ClusterSecret fromFile = ClusterSecret.fromFile(secretFile("secret", SECRET, "rw-------"));
        ClusterSecret fromEnvironment = ClusterSecret.fromEnvironment(Map.of("NEPTUNE_CLUSTER_SECRET", SECRET))
                .orElseThrow();

        assertThat(fromFile.toString()).contains("secret", "redacted").doesNotContain(SECRET);
        assertThat(fromEnvironment.toString()).isEqualTo("ClusterSecret[environment NEPTUNE_CLUSTER_SECRET, redacted]");
        SecurityConfig config = SecurityConfig.builder().clusterSecret(fromFile).build();
        assertThat(config.toString()).contains("clusterSecret=ClusterSecret[file ").doesNotContain(SECRET);
        assertThat(config.toBuilder().build()).isEqualTo(config);
    }

    @Test
    void theDerivedKeyIsHkdfSha256WithAZeroSalt() throws IOException {
        // RFC 5869, test case 3: IKM 22 bytes of 0x0b, no salt (HashLen zeros), no info; the first 32 bytes of OKM
        byte[] ikm = new byte[22];
        Arrays.fill(ikm, (byte) 0x0b);
        Path file = directory.resolve("rfc5869");
        Files.write(file, ikm);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        ClusterSecret secret = ClusterSecret.fromFile(file);

        assertThat(HexFormat.of().formatHex(secret.deriveKey("")))
                .isEqualTo("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d");
        assertThat(secret.deriveKey("neptune poll mac v1")).hasSize(32).isNotEqualTo(secret.deriveKey("other"));
    }

    private Path secretFile(String name, String content, String permissions) throws IOException {
        Path file = directory.resolve(name);
        Files.writeString(file, content, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }
}
