package io.neptune.server.crashfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash model of {@link CrashFs}, checked through the JVM's own file calls (a child JVM under
 * the shim, halted as if killed): after a cut, files and directories are exactly what their last
 * fsync made durable.
 */
class CrashFsIT {
    @TempDir
    Path work;
    private Path root;

    @BeforeEach
    void requireShim() {
        assumeTrue(CrashFs.unavailableReason().isEmpty(), () -> "skipped: " + CrashFs.unavailableReason().get());
        root = work.resolve("root");
    }

    @Test
    void unsyncedAppendsAreLostAndSyncedBytesStay() throws Exception {
        run("append|f|durable", "force|f", "syncdir|.", "append|f| lost");
        assertThat(read("f")).isEqualTo("durable lost");

        CrashFs.Cut cut = CrashFs.cut(root);

        assertThat(read("f")).isEqualTo("durable");
        assertThat(cut.files()).isEqualTo(1);
    }

    @Test
    void overwritesAndTruncationsSinceTheLastSyncAreUndone() throws Exception {
        run("append|f|abcdef", "force|f", "syncdir|.", "write|f|2|XY", "truncate|f|3", "pwrite|f|0|Q",
                "append|f|zz");
        assertThat(read("f")).isEqualTo("QbXzz");

        CrashFs.cut(root);

        assertThat(read("f")).isEqualTo("abcdef");
    }

    @Test
    void aFileIsEmptyUntilSyncedAndGoneUntilItsDirectoryIsSynced() throws Exception {
        run("mkdir|d", "syncdir|.", "append|d/listed|data", "syncdir|d", "append|d/unlisted|data", "force|d/unlisted");

        CrashFs.cut(root);

        assertThat(read("d/listed")).isEmpty();
        assertThat(root.resolve("d/unlisted")).doesNotExist();
    }

    @Test
    void aNewDirectoryWhoseParentWasNotSyncedDisappearsWithEverythingInIt() throws Exception {
        run("mkdir|d", "append|d/f|data", "force|d/f", "syncdir|d");

        CrashFs.cut(root);

        assertThat(root.resolve("d")).doesNotExist();
    }

    @Test
    void anAtomicReplaceIsDurableOnlyOnceItsDirectoryIsSynced() throws Exception {
        List<String> durableV1 = List.of("append|meta|v1", "force|meta", "syncdir|.");
        run(concat(durableV1, "append|meta.tmp|v2", "force|meta.tmp", "move|meta.tmp|meta"));
        assertThat(read("meta")).isEqualTo("v2");

        CrashFs.cut(root);

        assertThat(read("meta")).isEqualTo("v1");
        assertThat(root.resolve("meta.tmp")).doesNotExist();

        run("append|meta.tmp|v3", "force|meta.tmp", "move|meta.tmp|meta", "syncdir|.");
        CrashFs.cut(root);
        assertThat(read("meta")).isEqualTo("v3");
    }

    @Test
    void aDeletionIsUndoneUntilItsDirectoryIsSynced() throws Exception {
        run("append|f|kept", "force|f", "syncdir|.", "append|g|gone", "force|g", "syncdir|.", "delete|f", "delete|g",
                "syncdir|.", "append|h|x", "force|h", "syncdir|.", "delete|h");

        CrashFs.cut(root);

        assertThat(root.resolve("f")).doesNotExist();   // deleted, then the directory was synced
        assertThat(root.resolve("g")).doesNotExist();
        assertThat(read("h")).isEqualTo("x");            // deleted after the last sync: back
    }

    @Test
    void unsyncedDataOutlivesAProcessRestartUntilSomeoneSyncsIt() throws Exception {
        run("append|f|a", "force|f", "syncdir|.", "append|f|b", "append|g|c", "force|g", "syncdir|.");
        run("append|g|d");   // a restarted process that does not sync f: f's "b" is still only in the page cache
        assertThat(read("f")).isEqualTo("ab");

        CrashFs.cut(root);

        assertThat(read("f")).isEqualTo("a");
        assertThat(read("g")).isEqualTo("c");

        run("append|f|b");
        run("force|f");       // a later process syncs it: now it is durable
        CrashFs.cut(root);
        assertThat(read("f")).isEqualTo("ab");
    }

    @Test
    void aCutIsAlsoAFreshStart() throws Exception {
        run("append|f|a", "force|f", "syncdir|.", "append|f|b");
        CrashFs.cut(root);
        assertThat(CrashFs.cut(root)).isEqualTo(new CrashFs.Cut(0, 0, 0));
        assertThat(read("f")).isEqualTo("a");
    }

    @Test
    void aWriteBackMakesEverythingDurable() throws Exception {
        run("append|f|a", "mkdir|d", "append|d/g|b");
        CrashFs.writeBack(root);
        run("append|f|c", "delete|d/g");
        CrashFs.cut(root);
        assertThat(read("f")).isEqualTo("a");
        assertThat(read("d/g")).isEqualTo("b");
    }

    @Test
    void aWritableSharedMappingIsRefusedRatherThanModelledWrongly() throws Exception {
        run("append|f|a", "force|f", "syncdir|.", "mmap|f");

        assertThatThrownBy(() -> CrashFs.cut(root)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mmap");
    }

    @Test
    void aCutWhileTheProcessRunsIsRefused() throws Exception {
        Process process = start(List.of(), ProcessBuilder.Redirect.PIPE, "sleep");
        try {
            process.getInputStream().read();   // the child prints nothing until it exits; wait for its start
            assertThatThrownBy(() -> CrashFs.cut(root)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("still uses");
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private String read(String file) throws IOException {
        return Files.readString(root.resolve(file), StandardCharsets.UTF_8);
    }

    private static List<String> concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
    }

    private void run(String... operations) throws Exception {
        run(List.of(operations));
    }

    private void run(List<String> operations) throws Exception {
        Process process = start(operations, ProcessBuilder.Redirect.PIPE, null);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("probe finished").isTrue();
        assertThat(output).as("probe output").contains("DONE");
    }

    private Process start(List<String> operations, ProcessBuilder.Redirect output, @org.jspecify.annotations.Nullable
            String mode) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path")));
        if ("sleep".equals(mode)) {
            command.addAll(List.of(SleepMain.class.getName()));
        } else {
            command.add(CrashFsProbeMain.class.getName());
            command.add(root.toString());
            command.addAll(operations);
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output);
        builder.environment().putAll(CrashFs.environment(root));
        return builder.start();
    }

    /** Holds the shim's lock until killed. */
    static final class SleepMain {
        private SleepMain() {}

        public static void main(String[] args) throws InterruptedException {
            System.out.println("STARTED");
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(2));
        }
    }
}
