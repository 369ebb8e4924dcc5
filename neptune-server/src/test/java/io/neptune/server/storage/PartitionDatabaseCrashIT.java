package io.neptune.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a {@link PartitionDatabase} keeps when its process dies without closing it: every write whose
 * {@code write} returned, with its LSN, and nothing of a write cut short (DESIGN §6.5 relies on both).
 */
class PartitionDatabaseCrashIT {
    private static final long CHILD_TIMEOUT_SECONDS = 60;

    @TempDir
    Path directory;

    @Test
    void committedWritesSurviveAHalt() throws Exception {
        int writes = 25;
        runChild("committed", Integer.toString(writes));

        try (PartitionDatabase database = PartitionDatabase.open(directory, PartitionDatabaseCrashMain.NAME)) {
            assertThat(database.appliedLsn(0)).isEqualTo(writes);
            assertThat(keys(database)).hasSize(writes).contains("k1", "k" + writes);
        }
    }

    @Test
    void writeCutShortLeavesNeitherDataNorLsn() throws Exception {
        runChild("torn");

        try (PartitionDatabase database = PartitionDatabase.open(directory, PartitionDatabaseCrashMain.NAME)) {
            assertThat(database.appliedLsn(0)).isEqualTo(1);
            assertThat(database.isApplied(0, 2)).isFalse();
            assertThat(keys(database)).containsExactly("k1");
        }
    }

    /**
     * Writers of several partitions killed mid-stream, again and again: after each reopen, every
     * partition's data holds exactly the writes its LSN record says were applied. (H2 saves each
     * table consistently but not all tables together while other transactions run; see
     * {@code PartitionDatabase}.)
     */
    @Test
    void concurrentWritersOfSeveralPartitionsKeepDataAndLsnTogether() throws Exception {
        int partitions = 4;
        Random random = new Random();
        for (int round = 0; round < 8; round++) {
            runChild("concurrent", Integer.toString(partitions), Integer.toString(300 + random.nextInt(500)));
            try (PartitionDatabase database = PartitionDatabase.open(directory, PartitionDatabaseCrashMain.NAME)) {
                for (int p = 0; p < partitions; p++) {
                    int partition = p;
                    long applied = database.appliedLsn(partition);
                    int[] counts = database.read(connection -> {
                        try (PreparedStatement value = connection.prepareStatement(
                                "SELECT (SELECT LENGTH(v) FROM v WHERE p = ?), (SELECT COUNT(*) FROM t WHERE p = ?)")) {
                            value.setInt(1, partition);
                            value.setInt(2, partition);
                            try (ResultSet rows = value.executeQuery()) {
                                rows.next();
                                return new int[] {rows.getInt(1), rows.getInt(2)};
                            }
                        }
                    });
                    assertThat(counts).as("round %d, partition %d: value length and log rows at applied LSN %d",
                            round, partition, applied).containsExactly((int) applied, (int) applied);
                }
            }
        }
    }

    private void runChild(String... mode) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", testClasspath(), PartitionDatabaseCrashMain.class.getName(), directory.toString()));
        command.addAll(List.of(mode));
        // Output goes to a file, so a chatty child never blocks on a full pipe.
        Path log = directory.resolve("child.log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean exited = process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertThat(exited && process.exitValue() == 0)
                    .as("child %s exited with 0 within %d s; output:%n%s", List.of(mode), CHILD_TIMEOUT_SECONDS,
                            Files.readString(log))
                    .isTrue();
        } finally {
            process.destroyForcibly();
        }
    }

    private static List<String> keys(PartitionDatabase database) {
        return database.read(connection -> {
            List<String> keys = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT k FROM t WHERE p = 0 ORDER BY k");
                    ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    keys.add(rows.getString(1));
                }
            }
            return keys;
        });
    }

    /** This JVM's classpath; failsafe sets {@code java.class.path} to the real test classpath. */
    private static String testClasspath() {
        String classpath = System.getProperty("java.class.path");
        assertThat(classpath.split(File.pathSeparator))
                .as("java.class.path lists the test classes and H2: %s", classpath)
                .anyMatch(entry -> entry.contains("h2"));
        return classpath;
    }
}
