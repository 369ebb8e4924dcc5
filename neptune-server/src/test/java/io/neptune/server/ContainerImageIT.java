package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import io.neptune.server.ImageRunner.Mount;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Neptune's container image ({@code target/neptune-image.tar}, built by Jib in {@code mvn package})
 * runs a cluster: three containers of it, each in its own network namespace, on the TCP stack,
 * host a service from a jar mounted read-only ({@code NEPTUNE_CLASSPATH}), with a config file
 * mounted at the image's default {@code /etc/neptune/neptune.yaml} and a data directory owned by the
 * image's user (10001) at its volume {@code /var/lib/neptune}. A client in a fourth namespace sees
 * the three in its yellow page, every {@code /health/ready} answers 200 and calls succeed; then
 * {@code podman stop} (SIGTERM) drains one node, which exits 0.
 *
 * <p>With podman (and runc) able to run a container here, the image is loaded into a podman storage
 * of the test's own; otherwise its layers are unpacked and its entry point run as the image says
 * (user, working directory, environment) with {@code unshare} and {@code chroot} ({@link ImageRunner}).
 * Without root (network namespaces), or with neither way open, the test is skipped, saying why.
 *
 * <p>Network rule: the nodes and the client talk only inside namespaces this test creates and deletes
 * ({@link NamespaceNetwork}); no container has another network. Every container, the image, its
 * storage and the namespaces are removed on every path.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ContainerImageIT {
    private static final int NODES = 3;
    private static final Duration START = Duration.ofSeconds(90);
    private static final Duration STOP = Duration.ofSeconds(60);
    private static final String SERVICE_JAR = "/opt/service/echo-test-service.jar";

    @TempDir
    Path directory;

    /** Whether the test thread was interrupted (by the timeout) before its cleanup. */
    private boolean interrupted;

    @Test
    void threeContainersOfTheImageFormAClusterServeCallsAndOneDrainsOnPodmanStop() throws Exception {
        Path image = builtImage();
        try (NamespaceNetwork network = createNetwork(); ImageRunner runner = runner(image)) {
            runCluster(network, runner);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static NamespaceNetwork createNetwork() {
        try {
            return NamespaceNetwork.builder(NODES).client().create();
        } catch (NetworkUnavailableException e) {
            return abort(e.getMessage() + "; run as root to test the container image");
        }
    }

    private void runCluster(NamespaceNetwork network, ImageRunner runner) throws Exception {
        String cluster = "image-it-" + ProcessHandle.current().pid();
        Path serviceJar = echoServiceJar();
        List<NodeProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                String name = "node-" + (i + 1);
                Path data = Files.createDirectory(directory.resolve(name + "-data"));
                chown(data, "10001:10001");   // the image's user, as a user prepares a bind-mounted data directory
                Path config = Files.writeString(directory.resolve(name + ".yaml"), nodeConfig(network, i, cluster));
                nodes.add(runner.start(name, network.namespace(i), List.of(),
                        List.of(new Mount(config, "/etc/neptune/neptune.yaml", true),
                                new Mount(data, "/var/lib/neptune", false),
                                new Mount(serviceJar, SERVICE_JAR, true)),
                        Map.of("NEPTUNE_CLASSPATH", SERVICE_JAR,
                                "NEPTUNE_JAVA_OPTS", "-Xmx192m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError"),
                        directory.resolve(name + ".log")));
            }
            for (NodeProcess node : nodes) {
                node.awaitLine(l -> l.startsWith("READY " + node.name() + " "), START,
                        "READY line (" + runner.describe() + ")");
            }

            List<String> seen = callFromTheClientNamespace(network, cluster);
            assertThat(seen).as("the client's yellow page").contains("NODES node-1,node-2,node-3")
                    .contains("READY node-1 200", "READY node-2 200", "READY node-3 200")
                    .anyMatch(l -> l.startsWith("CALL 0 hello 0 from node-"))
                    .anyMatch(l -> l.startsWith("CALL 7 hello 7 from node-"));

            NodeProcess last = nodes.get(NODES - 1);
            runner.stop(last.name(), last);
            assertThat(last.awaitExit(STOP)).as(last.name() + " exits after SIGTERM" + last.details()).isTrue();
            assertThat(last.exitValue()).as(last.name() + "'s exit status after a drain" + last.details()).isZero();
            assertThat(last.transcript()).as(last.name() + " drained on SIGTERM" + last.details())
                    .anyMatch(l -> l.contains(last.name() + ": SIGTERM: draining"))
                    .anyMatch(l -> l.contains(last.name() + " is drained"));
        } finally {
            stopAll(runner, nodes);
        }
    }

    /**
     * SIGTERM to every container still running, then waits; what survives is killed by close, and the
     * runner then removes the containers. A test interrupted by its timeout cleans up the same way: the
     * interrupt is set again once the namespaces are gone.
     */
    private void stopAll(ImageRunner runner, List<NodeProcess> nodes) {
        interrupted |= Thread.interrupted();
        for (NodeProcess node : nodes) {
            try {
                if (node.handle().isAlive()) {
                    runner.stop(node.name(), node);
                }
            } catch (RuntimeException e) {
                // exiting already, or not stoppable: close kills it
            }
        }
        for (NodeProcess node : nodes) {
            try {
                node.awaitExit(STOP);
            } catch (InterruptedException e) {
                interrupted = true;
            }
            node.close();
        }
    }

    /** Runs {@link ImageClientMain} in the client namespace and returns its output once it printed DONE. */
    private List<String> callFromTheClientNamespace(NamespaceNetwork network, String cluster) throws Exception {
        Path config = Files.writeString(directory.resolve("client.yaml"), """
                node: image-client
                bind-address: %s
                port: 0
                admin-port: 0
                data-directory: %s
                security:
                  insecure: true
                membership:
                  stack: tcp
                  cluster: %s
                  port: 7800
                  initial-hosts: [%s]
                """.formatted(network.clientAddress(), directory.resolve("client-data"), cluster,
                        initialHosts(network)));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        try (NodeProcess client = NodeProcess.start("client", List.of("ip", "netns", "exec", network.clientNamespace(),
                java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true", "-cp", testClasspath(),
                ImageClientMain.class.getName(), config.toString(), Integer.toString(NODES)),
                directory.resolve("client.log"))) {
            client.awaitLine("DONE"::equals, START.multipliedBy(2), "DONE line");
            assertThat(client.awaitExit(STOP)).as("the client exits" + client.details()).isTrue();
            assertThat(client.exitValue()).as("the client's exit status" + client.details()).isZero();
            return client.transcript();
        }
    }

    private static String nodeConfig(NamespaceNetwork network, int i, String cluster) {
        return """
                node: node-%d
                bind-address: %s
                port: 7000
                admin-port: 8080
                data-directory: /var/lib/neptune/data
                security:
                  insecure: true   # plaintext, but only on the test's private namespaces
                membership:
                  stack: tcp
                  cluster: %s
                  port: 7800
                  initial-hosts: [%s]
                services:
                  - class: %s
                    partitions: all
                    replicas: 3
                """.formatted(i + 1, network.address(i), cluster, initialHosts(network),
                        EchoTestService.class.getName());
    }

    private static String initialHosts(NamespaceNetwork network) {
        return IntStream.range(0, network.nodes()).mapToObj(i -> network.address(i) + ":7800")
                .collect(Collectors.joining(", "));
    }

    /** The image {@code mvn package} built, or a skip if it was built with {@code -Dimage.skip}. */
    private static Path builtImage() {
        String property = System.getProperty("image.tarball");
        assertThat(property).as("system property image.tarball (set by the failsafe configuration)").isNotNull();
        Path image = Path.of(property);
        if (!Files.isRegularFile(image)) {
            abort("no container image at " + image + " (built with -Dimage.skip?); run mvn package without it");
        }
        return image;
    }

    private ImageRunner runner(Path image) throws IOException {
        ImageRunner.Result<ImageRunner> podman = ImageRunner.podman(image,
                Files.createDirectory(directory.resolve("podman")));
        if (podman.runner().isPresent()) {
            return podman.runner().get();
        }
        ImageRunner.Result<ImageRunner> unpacked = ImageRunner.unpacked(image,
                Files.createDirectory(directory.resolve("unpacked")));
        if (unpacked.runner().isPresent()) {
            System.err.println("ContainerImageIT: running the image unpacked, with unshare and chroot: "
                    + podman.problem());
            return unpacked.runner().get();
        }
        return abort("cannot run the image here: " + podman.problem() + "; and unpacked: " + unpacked.problem());
    }

    /** A jar of {@link EchoTestService} and its nested records, the "user's service" the containers host. */
    private Path echoServiceJar() throws IOException, URISyntaxException {
        Path classes = Path.of(EchoTestService.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path jar = directory.resolve("echo-test-service.jar");
        String prefix = EchoTestService.class.getName().replace('.', '/');
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).filter(f -> classes.relativize(f).toString()
                    .replace(File.separatorChar, '/').startsWith(prefix)).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    private static void chown(Path path, String owner) {
        List<String> command = List.of("chown", owner, path.toString());
        Commands.Result result = Commands.run(command);
        assertThat(result.exit()).as(result.describe(command)).isZero();
    }

    /** This JVM's class path (failsafe sets java.class.path to the real one, not its booter jar). */
    private static String testClasspath() {
        String classpath = System.getProperty("java.class.path");
        assertThat(classpath.split(File.pathSeparator)).as("java.class.path lists the test classes: %s", classpath)
                .anyMatch(e -> Files.exists(Path.of(e, ImageClientMain.class.getName().replace('.', '/') + ".class")));
        return classpath;
    }
}
