package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.neptune.server.crashfs.CrashFs;
import io.neptune.server.internal.PlacementStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small files that placement changes replace ({@code members} through
 * {@link ReplicaSet#writeDurably}, {@code placement.json} through {@link PlacementStore#put}) survive
 * a machine crash once written: a child JVM writes them under {@link CrashFs} and halts as if
 * killed, the cut takes back whatever was not made durable, and the files must still hold what was
 * written. A forced temporary file renamed over the old one is not enough: the rename lives in the
 * directory, which must be forced too.
 */
class DurableReplaceCrashIT {
    @TempDir
    Path work;

    @Test
    void aReplacedMembersFileAndPlacementFileSurviveAMachineCrash() throws Exception {
        assumeTrue(CrashFs.unavailableReason().isEmpty(), () -> "skipped: " + CrashFs.unavailableReason().get());
        Path root = work.resolve("data");
        Files.createDirectories(root);
        ProcessBuilder writer = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), WriterMain.class.getName(), root.toString()))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.PIPE);
        writer.environment().putAll(CrashFs.environment(root));
        Process child = writer.start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("writer finished").isTrue();
        assertThat(output).as("writer output").contains("DONE");

        CrashFs.cut(root);

        assertThat(root.resolve("members")).as("members after the cut").exists();
        assertThat(Files.readString(root.resolve("members"))).isEqualTo("2 1 node-1,node-2,node-3,node-4\n");
        assertThat(new PlacementStore(root).partitions("svc")).as("placement after the cut").contains(
                new java.util.TreeSet<>(Set.of(2, 3)));
    }

    /** Replaces each file twice, then halts without closing anything. */
    static final class WriterMain {
        private WriterMain() {}

        public static void main(String[] args) {
            Path root = Path.of(args[0]);
            ReplicaSet.writeDurably(root.resolve("members"), "1 1 node-1,node-2,node-3\n", "crash-test");
            ReplicaSet.writeDurably(root.resolve("members"), "2 1 node-1,node-2,node-3,node-4\n", "crash-test");
            PlacementStore placement = new PlacementStore(root);
            placement.put("svc", Set.of(1, 2));
            placement.put("svc", Set.of(2, 3));
            System.out.println("DONE");
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }
    }
}
