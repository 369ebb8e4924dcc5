package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.ClientConfig;
import io.neptune.core.ClusterSecret;
import io.neptune.core.FailoverMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessMode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link NodeConfigFile#toYaml()} is the inverse of {@link NodeConfigFile#load}: what launchers write is what nodes run. */
class NodeConfigYamlTest {
    @TempDir
    Path directory;

    @Test
    void aConfigWithEveryKeyChangedReadsBackEqual() throws IOException {
        Path secretFile = directory.resolve("cluster-secret");
        Files.writeString(secretFile, "the-cluster-secret-0123456789");
        Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("r--------"));
        NodeConfig node = NodeConfig.builder()
                .node(NodeId.of("node-7"))
                .bindAddress("127.0.0.2")
                .port(7800).pollPort(7801).adminPort(NodeConfig.NO_ADMIN_PORT)
                .adminTokenFile(directory.resolve("admin-token"))
                .ioThreads(3)
                .maxFrameBytes(8 * 1024 * 1024)
                .dataDirectory(directory.resolve("data"))
                .logSync(NodeConfig.LogSync.ALWAYS)
                .ackTimeout(Duration.ofMillis(1500))
                .logWriterThreads(5)
                .logRetention(new LogRetentionConfig(200, 50))
                .membership(MembershipConfig.builder().stack(MembershipConfig.Stack.TCP).cluster("shop")
                        .bindAddress("127.0.0.2").port(7900).discoveryDirectory(directory.resolve("discovery"))
                        .multicastAddress("239.8.8.9").multicastPort(45600)
                        .initialHosts(List.of(new InetSocketAddress("127.0.0.2", 7900),
                                new InetSocketAddress("127.0.0.3", 7900)))
                        .dnsQuery("_neptune._tcp.shop.test").dnsRecordType(MembershipConfig.DnsRecordType.SRV)
                        .dnsServer("127.0.0.1:5353")
                        .announceInterval(Duration.ofMillis(750)).expiry(Duration.ofSeconds(4)).build())
                .client(ClientConfig.builder().policy(BalancingPolicy.LOAD_AWARE).pollSize(2)
                        .pollDeadline(Duration.ofNanos(2_500_000)).discardSlowPolls(false).timeout(Duration.ofSeconds(7))
                        .retries(4).connectionsPerNode(3).connectTimeout(Duration.ofMillis(900))
                        .maxFrameBytes(1024 * 1024).partitioningInterval(Duration.ofMinutes(2)).build())
                .scheduling(SchedulingConfig.builder().policy(SchedulingPolicy.ADAPTIVE).adaptiveDropThreshold(0.1)
                        .adaptiveWindow(Duration.ofSeconds(20)).dropBelow(0.02).decay(0.6)
                        .serviceClass(new ServiceClass("gold", YieldFunction.hybrid(4, Duration.ofMillis(500), 1.5,
                                Duration.ofSeconds(2)), 0.25))
                        .serviceClass(new ServiceClass("bronze", YieldFunction.resptime(1, Duration.ofSeconds(3)), 0))
                        .build())
                .security(SecurityConfig.builder().tls(SecurityConfig.TlsMode.PERMISSIVE)
                        .identity(directory.resolve("node-7.pem"), directory.resolve("node-7-key.pem"))
                        .trust(directory.resolve("ca.pem")).clientAuth(SecurityConfig.ClientAuth.OPTIONAL)
                        .handshakeTimeout(Duration.ofSeconds(3)).insecure(true)
                        .clusterSecret(ClusterSecret.fromFile(secretFile)).build())

                .build();
        NodeConfigFile config = new NodeConfigFile(node,
                List.of(new NodeConfigFile.HostedService(EchoTestService.class.getName(), HostingConfig.builder()
                                .partitions(0, 1, 2, 9).priority(2).workers(5).queueCapacity(300).replicas(3)
                                .priorities(Map.of(1, 4, 9, 0)).failover(FailoverMode.FAIL_STOP).build()),
                        new NodeConfigFile.HostedService(KvTestService.class.getName(),
                                HostingConfig.builder().partitions(List.of()).build())),
                List.of(new NodeConfigFile.HostedProcess(ProcessConfig.builder("grep", List.of("grep", "-c",
                                "{partition-args}")).partitions(4).workingDirectory("/tmp/{service}")
                        .environment("LC_ALL", "C").partitionArguments(0, List.of("-i", "x"))
                        .partitionArguments(3, List.of("y")).mode(ProcessMode.WARM).timeout(Duration.ofSeconds(9))
                        .maxProcesses(3).maxOutputBytes(4096).build(), HostingConfig.builder().replicas(2).build())));

        Path file = directory.resolve("node-7.yaml");
        config.write(file);

        assertThat(NodeConfigFile.load(file)).isEqualTo(config);
        assertThat(Files.readString(file)).as("the secret's file, never the secret")
                .contains("cluster-secret-file: " + secretFile).doesNotContain("the-cluster-secret");
    }

    @Test
    void aClusterSecretFromTheEnvironmentIsNotWritten() {
        ClusterSecret secret = ClusterSecret.fromEnvironment(Map.of(ClusterSecret.ENVIRONMENT_VARIABLE,
                "the-environment-secret-0123456789")).orElseThrow();
        NodeConfigFile config = new NodeConfigFile(NodeConfig.builder().node(NodeId.of("env"))
                .security(SecurityConfig.builder().clusterSecret(secret).build()).build(), List.of(), List.of());

        assertThat(config.toYaml()).as("the node process inherits the variable").doesNotContain("cluster-secret",
                "the-environment-secret");
    }

    @Test
    void adminTlsReadsBackEqual() {
        NodeConfigFile config = new NodeConfigFile(NodeConfig.builder().node(NodeId.of("secure")).adminTls(true)
                .security(SecurityConfig.builder().tls(SecurityConfig.TlsMode.REQUIRED)
                        .identity(directory.resolve("n.pem"), directory.resolve("n-key.pem"))
                        .trust(directory.resolve("ca.pem")).build()).build(), List.of(), List.of());
        Path file = directory.resolve("secure.yaml");
        config.write(file);
        assertThat(NodeConfigFile.load(file)).isEqualTo(config);
        assertThat(config.node().adminTls()).isTrue();
    }

    @Test
    void theDefaultsReadBackEqual() {
        NodeConfigFile config = new NodeConfigFile(NodeConfig.builder().node(NodeId.of("plain")).build(),
                List.of(new NodeConfigFile.HostedService(EchoTestService.class.getName(), HostingConfig.all())), List.of());
        Path file = directory.resolve("plain.yaml");
        config.write(file);
        assertThat(NodeConfigFile.load(file)).isEqualTo(config);
    }

    @Test
    void aCustomYieldFunctionIsRefusedByName() {
        YieldFunction custom = new YieldFunction() {
            @Override
            public double yieldAt(long responseNanos) {
                return responseNanos < 1_000_000_000L ? 1 : 0;
            }

            @Override
            public Duration deadline() {
                return Duration.ofSeconds(1);
            }
        };
        NodeConfigFile config = new NodeConfigFile(NodeConfig.builder().node(NodeId.of("custom"))
                .scheduling(SchedulingConfig.builder().serviceClass(new ServiceClass("step", custom, 0)).build())
                .build(), List.of(), List.of());
        assertThatThrownBy(config::toYaml).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("class 'step'").hasMessageContaining("custom function");
    }
}
