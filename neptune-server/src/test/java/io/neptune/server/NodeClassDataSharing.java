package io.neptune.server;

import io.neptune.core.SecurityConfig;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * Application class data sharing (AppCDS) for the node processes of {@link ReplicatedProcesses}: the
 * classes a node loads at start (Netty, JGroups, H2, Jackson, Logback, Neptune's own), parsed and
 * verified once per test JVM into a dynamic archive that every node process then maps instead of
 * loading them again. On a 2-core machine a node's start costs about 3.5 s of CPU, 1.5 s less with
 * the archive; the ITs start hundreds of node processes, most of them while other nodes carry a
 * load, so the CPU saved shortens every start and every catch-up that competes with one.
 *
 * <p>What a node runs is unchanged: the same classes from the same class path entries in the same
 * order, each directory entry (CDS takes jars only) packed into a jar of the same content; the
 * archive only replaces class loading and verification of classes that did not change. If anything
 * on the way fails (no directory to write, a training node that does not start, an archive the JVM
 * cannot write), nodes run as before, without the archive, and the reason is printed once.
 *
 * <p>Thread-safety: {@link #jvm()} is synchronized; the archive is made once per test JVM.
 */
final class NodeClassDataSharing {
    private static final Duration TRAINING_TIMEOUT = Duration.ofSeconds(120);
    private static @Nullable Jvm jvm;

    private NodeClassDataSharing() {}

    /** The class path and JVM options of a node process: with the archive, or as before. */
    record Jvm(String classPath, List<String> options) {}

    /** The class path and options every node process of this test JVM runs with; made at the first call. */
    static synchronized Jvm jvm() {
        if (jvm == null) {
            jvm = prepare();
        }
        return jvm;
    }

    private static Jvm prepare() {
        String classPath = System.getProperty("java.class.path");
        Jvm plain = new Jvm(classPath, List.of());
        if (Boolean.getBoolean("neptune.test.nodeCds.off")) {
            return plain;
        }
        long started = System.nanoTime();
        Path directory = null;
        try {
            directory = Files.createTempDirectory("neptune-node-cds-");
            deleteOnExit(directory);
            String jars = jarredClassPath(classPath, directory);
            Path archive = directory.resolve("node.jsa");
            train(jars, archive, directory);
            if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
                throw new IOException("the training node wrote no archive " + archive);
            }
            // -Xshare:auto (the default): a JVM that cannot map the archive runs without it; the log of cds
            // stays off so that it never adds a line to what tests read from a node's output.
            Jvm shared = new Jvm(jars, List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off",
                    "-Xlog:cds+dynamic=off"));
            System.out.printf("NodeClassDataSharing: node processes map %s (%d MB), made in %d ms%n", archive,
                    Files.size(archive) >> 20, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            return shared;
        } catch (IOException | RuntimeException e) {
            System.out.printf("NodeClassDataSharing: node processes run without a class data archive: %s%n", e);
            return plain;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return plain;
        }
    }

    /** {@code classPath} with each directory entry replaced by a jar of its content, in {@code directory}. */
    private static String jarredClassPath(String classPath, Path directory) throws IOException {
        List<String> entries = new ArrayList<>();
        int jars = 0;
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path path = Path.of(entry);
            if (Files.isDirectory(path)) {
                Path jar = directory.resolve("classes-" + (++jars) + ".jar");
                jar(path, jar);
                entries.add(jar.toString());
            } else {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Packs the files under {@code root} into {@code jar}, uncompressed (it is read once per test JVM). */
    private static void jar(Path root, Path jar) throws IOException {
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(root)) {
            out.setLevel(Deflater.NO_COMPRESSION);
            for (Path file : files.sorted().toList()) {
                String name = root.relativize(file).toString().replace(File.separatorChar, '/');
                if (name.isEmpty()) {
                    continue;
                }
                if (Files.isDirectory(file)) {
                    out.putNextEntry(new ZipEntry(name + "/"));
                } else {
                    out.putNextEntry(new ZipEntry(name));
                    Files.copy(file, out);
                }
                out.closeEntry();
            }
        }
    }

    /**
     * Runs one node as {@link ReplicatedProcesses} runs them (TLS required, the kv service, primary of
     * its partitions), stops it cleanly, and lets its JVM write the classes it loaded to {@code archive}.
     */
    private static void train(String classPath, Path archive, Path directory) throws IOException, InterruptedException {
        String cluster = "cds-" + ProcessHandle.current().pid();
        TestCertificates certificates = TestCertificates.create(directory.resolve("certs"), cluster);
        SecurityConfig security = certificates.node("cds");
        Path config = directory.resolve("cds.yaml");
        Files.createDirectories(directory.resolve("discovery"));
        Files.writeString(config, """
                node: cds
                io-threads: 1
                data-directory: %s
                membership:
                  cluster: %s
                  discovery-directory: %s
                  announce-interval: 300ms
                  expiry: 3s
                services:
                  - class: %s
                    priority: 1
                    replicas: 1
                    workers: 4
                security:
                  tls: required
                  certificate: %s
                  key: %s
                  trust: %s
                """.formatted(directory.resolve("data"), cluster, directory.resolve("discovery"),
                KvTestService.class.getName(), security.certificate(), security.key(), security.trust()));
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:ArchiveClassesAtExit=" + archive,
                "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-cp", classPath, ConfigNodeMain.class.getName(),
                config.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(directory.resolve("training.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TRAINING_TIMEOUT.toNanos();
            Path log = directory.resolve("training.log");
            while (!ready(log)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("the training node did not start (see " + log + ")");
                }
                process.waitFor(50, TimeUnit.MILLISECONDS);   // polling its log for READY, or its exit
            }
            OutputStream stdin = process.getOutputStream();
            stdin.close();   // ConfigNodeMain stops cleanly when its standard input closes; its JVM then writes the archive
            if (!process.waitFor(TRAINING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("the training node did not stop (see " + log + ")");
            }
        } finally {
            process.destroyForcibly();
        }
    }

    private static boolean ready(Path log) throws IOException {
        return Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).lines()
                .anyMatch(line -> line.startsWith("READY "));
    }

    private static void deleteOnExit(Path directory) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.walkFileTree(directory, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                        Files.delete(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path dir, @Nullable IOException e) throws IOException {
                        Files.delete(dir);
                        return FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException | UncheckedIOException e) {
                // a temporary directory: the system cleans it up otherwise
            }
        }, "node-cds-cleanup"));
    }
}
