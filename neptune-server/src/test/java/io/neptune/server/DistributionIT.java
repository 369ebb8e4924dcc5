package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.ReplicaRole;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server distribution as a user meets it: unpack {@code neptune-<version>.tar.gz} (built by
 * {@code mvn package} before this test runs), compile the README's service against {@code lib/},
 * drop its jar into {@code lib/}, and start the three nodes of the shipped {@code config/node-*.yaml}
 * with {@code bin/neptune node}: no Maven, no class path of this build.
 */
class DistributionIT {
    private static final Duration START = Duration.ofSeconds(60);
    private static final int PARTITIONS = 8;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // the nodes' logs stay for the post-mortem when the test fails
    Path directory;

    private final List<NodeProcess> nodes = new ArrayList<>();

    @AfterEach
    void stopNodes() {
        nodes.forEach(NodeProcess::close);
    }

    @Test
    void anUnpackedDistributionRunsAReplicatedClusterOfAUsersService() throws Exception {
        Path home = unpack();
        assertThat(home.resolve("LICENSE")).content().contains("Apache License");
        assertThat(Files.getPosixFilePermissions(home.resolve("bin/neptune"))).contains(PosixFilePermission.OWNER_EXECUTE);
        assertThat(jarNames(home.resolve("lib"))).anyMatch(n -> n.startsWith("neptune-server-"))
                .anyMatch(n -> n.startsWith("jgroups-")).anyMatch(n -> n.startsWith("h2-"))
                .anyMatch(n -> n.startsWith("logback-classic-")).noneMatch(n -> n.startsWith("slf4j-simple-"));

        String version = home.getFileName().toString().substring("neptune-".length());
        assertThat(run(home, "bin/neptune", "--version")).as("the version the build stamped into the jars")
                .first().isEqualTo("Neptune " + version);

        compileServiceInto(home.resolve("lib/counter.jar"), home.resolve("lib"));

        for (int i = 1; i <= 3; i++) {
            nodes.add(NodeProcess.start("node-" + i, List.of("bin/neptune", "node", "--config", "config/node-" + i + ".yaml",
                    "--parent-pid", Long.toString(ProcessHandle.current().pid())), directory.resolve("node-" + i + ".log"),
                    Map.of("NEPTUNE_JAVA_OPTS", "-Xmx160m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"), home));
        }
        for (NodeProcess node : nodes) {
            node.awaitLine(l -> l.startsWith("READY " + node.name() + " "), START, "READY line");
        }

        MembershipConfig membership = MembershipConfig.builder().cluster("counters")
                .discoveryDirectory(home.resolve("data/discovery")).build();
        try (NeptuneNode client = NeptuneNode.builder(NodeConfig.builder().node("distribution-client")
                .membership(membership).adminPort(NodeConfig.NO_ADMIN_PORT).build()).start()) {
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                await("a primary and two secondaries of counter#" + p).atMost(START).pollInterval(Duration.ofMillis(250))
                        .until(() -> roles(client, partition), r -> r.equals(List.of(ReplicaRole.PRIMARY,
                                ReplicaRole.SECONDARY, ReplicaRole.SECONDARY)));
            }
            NeptuneHandle handle = NeptuneHandle.create();
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 1; i <= 5; i++) {
                    Map<?, ?> count = client.client().call(handle, "counter", p, "add", AccessMode.WRITE,
                            Map.of("name", "visits-" + p, "delta", 2), Map.class);
                    assertThat(count.get("value")).isEqualTo(2 * i);
                }
            }
            for (int p = 0; p < PARTITIONS; p++) {   // a read goes to any replica; a secondary may trail a moment
                int partition = p;
                await("counter#" + p + " read back").atMost(START).until(() -> client.client().call(handle, "counter",
                        partition, "get", AccessMode.READ, Map.of("name", "visits-" + partition), Map.class)
                        .get("value"), v -> Integer.valueOf(10).equals(v));
            }
        }

        // A generous --wait: the admin process is a JGroups member, and on a busy machine its join can time out
        // and leave it alone in its view until a merge (a CI run: ten 1 s JOIN attempts to node-3 unanswered).
        List<String> adminNodes;
        try {
            adminNodes = run(home, "bin/neptune", "admin", "nodes", "--config", "config/node-1.yaml", "--wait", "30s");
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + nodeWarnings(), e);
        }
        assertThat(String.join("\n", adminNodes)).contains("node-1", "node-2", "node-3");

        // node-1 by an operator's drain, the others by SIGTERM, which drains them too: each exits 0, having handed
        // its primaries over (the last one has no other replica to hand them to, and says so).
        List<String> drained = run(home, "bin/neptune", "admin", "drain", "--config", "config/node-1.yaml", "--wait",
                "30s", "--timeout", "60s", "node-1");
        assertThat(drained).anyMatch(l -> l.startsWith("node-1 is draining; primaries to hand over: "))
                .anyMatch(l -> l.endsWith("node-1 finished its calls and left the cluster"));
        NodeProcess first = nodes.get(0);
        assertThat(first.awaitExit(START)).as("node-1 exits after its drain" + first.details()).isTrue();
        assertThat(first.exitValue()).as("node-1 exit status after its drain" + first.details()).isZero();
        for (NodeProcess node : nodes.subList(1, nodes.size())) {
            int status = node.terminate();
            assertThat(status).as(node.name() + " exit status after SIGTERM" + node.details()).isZero();
            assertThat(node.transcript()).as(node.name() + " drained on SIGTERM" + node.details())
                    .anyMatch(l -> l.contains(node.name() + ": SIGTERM: draining"))
                    .anyMatch(l -> l.contains(node.name() + " is drained"));
        }
        // The shipped logging config stamps every line with its time (config/logback.xml).
        assertThat(Files.readAllLines(directory.resolve("node-1.log")))
                .anyMatch(l -> l.matches("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}.* INFO .*"));
    }

    /** The last warnings and errors each node logged, for a failure message. */
    private String nodeWarnings() throws IOException {
        StringBuilder out = new StringBuilder();
        for (NodeProcess node : nodes) {
            List<String> warnings = Files.readAllLines(directory.resolve(node.name() + ".log")).stream()
                    .filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList();
            out.append("\n").append(node.name()).append(" warned:\n").append(String.join("\n",
                    warnings.subList(Math.max(0, warnings.size() - 20), warnings.size())));
        }
        return out.toString();
    }

    private static List<ReplicaRole> roles(NeptuneNode client, int partition) throws Exception {
        return client.admin().replicas("counter", partition).get(30, TimeUnit.SECONDS).stream()
                .filter(r -> r.error().isEmpty()).map(ClusterAdmin.ReplicaStatus::role).sorted().toList();
    }

    private Path unpack() throws IOException, InterruptedException {
        // not neptune.*: a node started in this JVM would take that for a config key (docs/CONFIGURATION.md)
        String tarball = System.getProperty("distribution.tarball");
        assertThat(tarball).as("system property distribution.tarball (set by the failsafe configuration)").isNotNull();
        assertThat(Path.of(tarball)).as("the distribution built by mvn package").isRegularFile();
        Path unpacked = Files.createDirectory(directory.resolve("unpacked"));
        List<String> out = run(unpacked, "tar", "-xzf", tarball);
        assertThat(out).isEmpty();
        try (Stream<Path> top = Files.list(unpacked)) {
            List<Path> entries = top.toList();
            assertThat(entries).as("one top-level directory neptune-<version>").hasSize(1);
            assertThat(entries.get(0).getFileName().toString()).startsWith("neptune-");
            return entries.get(0);
        }
    }

    /** What README's "Running the distribution" says: javac against lib/*, a jar of the classes into lib/. */
    private void compileServiceInto(Path jar, Path lib) throws IOException {
        Path source = directory.resolve("src/com/example/counter/CounterService.java");
        Files.createDirectories(source.getParent());
        try (var in = DistributionIT.class.getResourceAsStream("/distribution/CounterService.java")) {
            assertThat(in).isNotNull();
            Files.copy(in, source);
        }
        Path classes = Files.createDirectories(directory.resolve("classes"));
        String classpath;
        try (Stream<Path> jars = Files.list(lib)) {
            classpath = jars.map(Path::toString).sorted().collect(Collectors.joining(java.io.File.pathSeparator));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter errors = new StringWriter();
        boolean compiled = javac.getTask(errors, null, null, List.of("-cp", classpath, "-d", classes.toString(),
                "--release", "17"), null, javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)
                .getJavaFileObjects(source)).call();
        assertThat(compiled).as("javac: " + errors).isTrue();
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }

    private static List<String> jarNames(Path lib) throws IOException {
        try (Stream<Path> jars = Files.list(lib)) {
            return jars.map(p -> p.getFileName().toString()).toList();
        }
    }

    /** Runs a short command in {@code directory}, expects exit status 0, returns its output lines. */
    private static List<String> run(Path directory, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command) + " finished").isTrue();
            assertThat(process.exitValue()).as(String.join(" ", command) + ":\n" + output).isZero();
            return output.lines().toList();
        } finally {
            process.destroyForcibly();
        }
    }
}
