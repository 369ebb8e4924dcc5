package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ClusterSecret;
import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config overlay (docs/CONFIGURATION.md, "Environment variables and system properties"): keys
 * from variables and properties over the file, {@code ${...}} in the file, and errors that name the
 * source of the bad value. The environment and the properties are maps, never the process's own.
 */
class NodeConfigOverlayTest {
    private static final Map<String, String> NONE = Map.of();

    @TempDir
    Path dir;

    private Path file(String yaml) throws IOException {
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private NodeConfig load(String yaml, Map<String, String> environment, Map<String, String> properties)
            throws IOException {
        return NodeConfigFile.load(file(yaml), environment, properties).node();
    }

    private String inFile() {
        return dir.resolve("node.yaml") + ": ";
    }

    @Test
    void aSystemPropertyWinsOverAVariableWhichWinsOverTheFileWhichWinsOverTheDefault() throws IOException {
        Map<String, String> variable = Map.of("NEPTUNE_MEMBERSHIP_CLUSTER", "from-variable");
        Map<String, String> property = Map.of("neptune.membership.cluster", "from-property");
        String yaml = "membership:\n  cluster: from-file\n";

        assertThat(load("", NONE, NONE).membership().cluster()).isEqualTo(MembershipConfig.DEFAULT_CLUSTER);
        assertThat(load(yaml, NONE, NONE).membership().cluster()).isEqualTo("from-file");
        assertThat(load(yaml, variable, NONE).membership().cluster()).isEqualTo("from-variable");
        assertThat(load("", variable, NONE).membership().cluster()).isEqualTo("from-variable");
        assertThat(load(yaml, variable, property).membership().cluster()).isEqualTo("from-property");
        assertThat(load("", NONE, property).membership().cluster()).isEqualTo("from-property");
    }

    @Test
    void aVariableIsTheKeyPathUpperCasedWithDotsAndDashesAsUnderscoresAndIsReadLikeTheFilesValue()
            throws IOException {
        NodeConfig config = load("node: from-file\nmembership:\n  expiry: 9s\n", Map.of(
                "NEPTUNE_NODE", "007",
                "NEPTUNE_IO_THREADS", "3",
                "NEPTUNE_MAX_FRAME_SIZE", "64KiB",
                "NEPTUNE_MEMBERSHIP_ANNOUNCE_INTERVAL", "250ms",
                "NEPTUNE_MEMBERSHIP_STACK", "tcp",
                "NEPTUNE_CLIENT_DISCARD_SLOW_POLLS", "false",
                "NEPTUNE_SCHEDULING_DECAY", "0.25",
                "NEPTUNE_LOG_SYNC", "always"), NONE);

        assertThat(config.node().value()).as("a string stays as written, leading zeros too").isEqualTo("007");
        assertThat(config.ioThreads()).isEqualTo(3);
        assertThat(config.maxFrameBytes()).isEqualTo(64 * 1024);
        assertThat(config.membership().announceInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(config.membership().expiry()).as("the file's, which no variable names").isEqualTo(Duration.ofSeconds(9));
        assertThat(config.membership().stack()).isEqualTo(MembershipConfig.Stack.TCP);
        assertThat(config.client().discardSlowPolls()).isFalse();
        assertThat(config.scheduling().decay()).isEqualTo(0.25);
        assertThat(config.logSync()).isEqualTo(NodeConfig.LogSync.ALWAYS);

        NodeConfig properties = load("", NONE, Map.of("neptune.io-threads", "5", "neptune.membership.stack", "udp"));
        assertThat(properties.ioThreads()).isEqualTo(5);
        assertThat(properties.membership().stack()).isEqualTo(MembershipConfig.Stack.UDP);
    }

    @Test
    void aListKeyTakesACommaSeparatedValue() throws IOException {
        MembershipConfig membership = load("membership:\n  stack: tcp\n  initial-hosts: [127.0.0.1:9999]\n",
                Map.of("NEPTUNE_MEMBERSHIP_INITIAL_HOSTS", "127.0.0.1:7800, 127.0.0.1:7801,"), NONE).membership();
        assertThat(membership.initialHosts()).containsExactly(new InetSocketAddress("127.0.0.1", 7800),
                new InetSocketAddress("127.0.0.1", 7801));
    }

    @Test
    void aBadValueFromAVariableOrAPropertyIsRefusedNamingItsSource() {
        assertThatThrownBy(() -> load("", Map.of("NEPTUNE_MEMBERSHIP_STACK", "udpp"), NONE))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo("membership.stack"))
                .hasMessage("environment variable NEPTUNE_MEMBERSHIP_STACK: membership.stack: 'udpp'"
                        + " (expected: one of loopback, udp, tcp, dns)");
        assertThatThrownBy(() -> load("", NONE, Map.of("neptune.membership.stack", "udpp")))
                .isInstanceOf(ConfigException.class).hasMessage("system property neptune.membership.stack:"
                        + " membership.stack: 'udpp' (expected: one of loopback, udp, tcp, dns)");
        assertThatThrownBy(() -> load("", Map.of("NEPTUNE_IO_THREADS", "two"), NONE))
                .isInstanceOf(ConfigException.class)
                .hasMessage("environment variable NEPTUNE_IO_THREADS: io-threads: 'two' (expected: an integer)");
        assertThatThrownBy(() -> load("", Map.of("NEPTUNE_CLIENT_POLL_DEADLINE", "soon"), NONE))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith(
                        "environment variable NEPTUNE_CLIENT_POLL_DEADLINE: client.poll-deadline: 'soon' (expected: a duration");
        assertThatThrownBy(() -> load("", NONE, Map.of("neptune.max-frame-size", "4MB")))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith(
                        "system property neptune.max-frame-size: max-frame-size: '4MB' (expected: a size");
        assertThatThrownBy(() -> load("", Map.of("NEPTUNE_PORT", "70000"), NONE)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(dir.resolve("node.yaml") + " and environment variable NEPTUNE_PORT: ")
                .hasMessageContaining("port: 70000 (expected: 0..65535)");
        // the same bad value in the file names the file
        assertThatThrownBy(() -> load("membership:\n  stack: udpp\n", NONE, NONE)).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "membership.stack: 'udpp' (expected: one of loopback, udp, tcp, dns)");
    }

    @Test
    void aVariableOrPropertyThatNamesNoKeyIsRefusedButTheLaunchersOwnAreNot() throws IOException {
        assertThatThrownBy(() -> load("", Map.of("NEPTUNE_MEMBERSHIP_STAK", "udp"), NONE))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.source())
                        .isEqualTo("environment variable NEPTUNE_MEMBERSHIP_STAK"))
                .hasMessageStartingWith("environment variable NEPTUNE_MEMBERSHIP_STAK: names no config key")
                .hasMessageContaining("such as NEPTUNE_MEMBERSHIP_STACK");
        assertThatThrownBy(() -> load("", NONE, Map.of("neptune.membership.stak", "udp")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("system property neptune.membership.stak: names no config key")
                .hasMessageContaining("such as neptune.membership.stack");
        // sections and the lists of sections come only from the file
        for (String section : new String[] {"NEPTUNE_SERVICES", "NEPTUNE_SERVICES_0_CLASS", "NEPTUNE_MEMBERSHIP",
                "NEPTUNE_CLASSES"}) {
            assertThatThrownBy(() -> load("", Map.of(section, "x"), NONE)).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("environment variable " + section + ": names no config key");
        }
        assertThat(load("", Map.of("NEPTUNE_JAVA_OPTS", "-Xmx1g", "NEPTUNE_CLASSPATH", "/opt/lib/*",
                "PATH", "/bin", "NEPTUNEX", "y"), Map.of("neptunex", "y", "java.home", "/jdk")).ioThreads())
                .isPositive();
    }

    @Test
    void theLogFormatAndLevelTheLogbackConfigsReadAreNotRefusedAsKeys() throws IOException {
        assertThat(load("", Map.of("NEPTUNE_LOG_FORMAT", "json"), Map.of("neptune.log.format", "json",
                "neptune.log.level", "INFO")).ioThreads()).isPositive();
        assertThatThrownBy(() -> load("", Map.of("NEPTUNE_LOG_LEVEL", "INFO"), NONE)) // the property only
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("environment variable NEPTUNE_LOG_LEVEL: names no config key");
    }

    @Test
    void stringValuesExpandVariablesDefaultsAndFilesAndDoubleDollarIsALiteral() throws IOException {
        Path secret = dir.resolve("token");
        Files.writeString(secret, "s3cret-token\n");
        NodeConfig config = load("""
                node: ${NODE_NAME}
                port: ${PORT:-0}
                poll-port: ${POLL_PORT:-0}
                admin-token-file: ${TOKEN_DIR:-/unset}/token
                data-directory: $${HOME}/${file:%s}
                membership:
                  cluster: shop-${ZONE:-none}
                  stack: tcp
                  initial-hosts: ["${SEED}:7800", 127.0.0.1:7801]
                """.formatted(secret), Map.of("NODE_NAME", "pod-1", "PORT", "7000", "POLL_PORT", "",
                "TOKEN_DIR", dir.toString(), "SEED", "127.0.0.1"), NONE);

        assertThat(config.node().value()).isEqualTo("pod-1");
        assertThat(config.port()).as("an expanded number is a number").isEqualTo(7000);
        assertThat(config.pollPort()).as("an empty variable takes the default").isZero();
        assertThat(config.adminTokenFile()).isEqualTo(secret);
        assertThat(config.dataDirectory()).as("$${ is ${, and a file's content is trimmed")
                .isEqualTo(Path.of("${HOME}/s3cret-token"));
        assertThat(config.membership().cluster()).isEqualTo("shop-none");
        assertThat(config.membership().initialHosts()).containsExactly(new InetSocketAddress("127.0.0.1", 7800),
                new InetSocketAddress("127.0.0.1", 7801));
    }

    @Test
    void aProcessCommandKeepsAShellsReferencesButItsEnvironmentIsExpanded() throws IOException {
        Path secret = Files.writeString(dir.resolve("token"), "secret-in-a-file\n");
        NodeConfigFile.HostedProcess process = NodeConfigFile.load(file("""
                services:
                  - process:
                      name: p
                      command: [sh, -c, 'echo "${#x} ${HOME}"']
                      environment: {TOKEN: "${file:%s}"}
                """.formatted(secret)), Map.of("HOME", "/home/neptune"), NONE).processes().get(0);
        assertThat(process.process().command()).containsExactly("sh", "-c", "echo \"${#x} ${HOME}\"");
        assertThat(process.process().environment()).containsEntry("TOKEN", "secret-in-a-file");
    }

    @Test
    void aValueFromAVariableIsTakenAsWrittenNotExpanded() throws IOException {
        assertThat(load("", Map.of("NEPTUNE_DATA_DIRECTORY", "data-${B}", "B", "b"), NONE).dataDirectory())
                .isEqualTo(Path.of("data-${B}"));
    }

    @Test
    void anExpansionThatCannotBeDoneIsRefusedNamingTheFileTheKeyAndTheVariableOrFile() {
        assertThatThrownBy(() -> load("node: ${NODE_NAME}\n", NONE, NONE)).isInstanceOfSatisfying(
                ConfigException.class, e -> assertThat(e.key()).isEqualTo("node"))
                .hasMessage(inFile() + "node: '${NODE_NAME}': environment variable NODE_NAME is not set"
                        + " (expected: set, or a default such as ${NODE_NAME:-value})");
        assertThatThrownBy(() -> load("membership:\n  cluster: ${ZONE}\n", Map.of("ZONE", ""), NONE))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "membership.cluster: '${ZONE}': environment variable ZONE is empty");
        Path missing = dir.resolve("missing-secret");
        assertThatThrownBy(() -> load("admin-token-file: ${file:" + missing + "}\n", NONE, NONE))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "admin-token-file: '${file:" + missing + "}': file " + missing
                        + " cannot be read (NoSuchFileException");
        assertThatThrownBy(() -> load("membership:\n  cluster: ${#x}\n", NONE, NONE))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "membership.cluster: '${#x}' (expected: ${VAR},")
                .hasMessageContaining("$${ for a literal ${");
        assertThatThrownBy(() -> load("node: ${NODE\n", NONE, NONE)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "node: '${NODE' has a '${' without its '}'");
    }

    @Test
    void anErrorInAValueAVariableNamesNamesTheVariable() throws IOException {
        Path shortSecret = dir.resolve("short");
        Files.writeString(shortSecret, "fifteen-bytes!!");
        Files.setPosixFilePermissions(shortSecret, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> load("", Map.of("NEPTUNE_SECURITY_CLUSTER_SECRET_FILE", shortSecret.toString()),
                NONE)).isInstanceOf(ConfigException.class).hasMessageStartingWith(
                        "environment variable NEPTUNE_SECURITY_CLUSTER_SECRET_FILE: security.cluster-secret-file: '"
                        + shortSecret + "' holds 15 bytes");
        // the cluster secret's own variable is not a key, and its error names it as before
        assertThatThrownBy(() -> load("", Map.of(ClusterSecret.ENVIRONMENT_VARIABLE, "too-short"), NONE))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("NEPTUNE_CLUSTER_SECRET: 9 bytes");
    }

    @Test
    void bindAddressMayNameTheLoopbackInterfaceOrComeFromThePodIp() throws IOException {
        NodeConfig byInterface = load("bind-address: lo\n", NONE, NONE);
        assertThat(byInterface.bindAddress()).as("lo's first IPv4 address").isEqualTo("127.0.0.1");
        assertThat(byInterface.membership().bindAddress()).as("membership's, by default the node's")
                .isEqualTo("127.0.0.1");
        assertThat(load("membership:\n  bind-address: lo\n", NONE, NONE).membership().bindAddress())
                .isEqualTo("127.0.0.1");
        assertThat(load("", Map.of("NEPTUNE_BIND_ADDRESS", "lo"), NONE).bindAddress()).isEqualTo("127.0.0.1");
        assertThat(load("bind-address: ${POD_IP}\n", Map.of("POD_IP", "127.0.0.1"), NONE).bindAddress())
                .isEqualTo("127.0.0.1");
        assertThat(load("bind-address: localhost\n", NONE, NONE).bindAddress()).as("a host name, as written")
                .isEqualTo("localhost");
    }
}
