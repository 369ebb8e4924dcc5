package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.MembershipConfig;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.jgroups.JChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loopback stack's discovery files while their coordinator rewrites them (as it does at every
 * view change): a node that reads one must get all of it. With JGroups' own FILE_PING, which
 * truncates the file and writes it again, a reader gets an empty or cut file and starts a cluster
 * of its own.
 */
class AtomicFilePingTest {
    @TempDir
    Path dir;

    @Test
    void aReaderNeverSeesAPartOfAFileBeingRewritten() throws Exception {
        try (JChannel channel = coordinator("atomic-test")) {
            AtomicFilePing ping = channel.getProtocolStack().findProtocol(AtomicFilePing.class);
            assertThat(ping).as("the loopback stack's discovery").isNotNull();
            ping.rewrite();
            Path file = listFile(dir.resolve("atomic-test"));
            byte[] whole = Files.readAllBytes(file);
            assertThat(whole).isNotEmpty();

            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer = new Thread(() -> {
                while (writing.get()) {
                    ping.rewrite();
                }
            }, "discovery-rewriter");
            writer.start();
            try {
                for (int read = 0; read < 20_000; read++) {
                    byte[] seen;
                    try {
                        seen = Files.readAllBytes(file);
                    } catch (NoSuchFileException e) {
                        throw new AssertionError("read " + read + ": the file was missing", e);
                    }
                    assertThat(seen).as("read %d of the coordinator's file", read).isEqualTo(whole);
                }
            } finally {
                writing.set(false);
                writer.join();
            }
        }
    }

    @Test
    void twoThreadsRewritingTheFileAtOnceBothSucceed() throws Exception {
        try (JChannel channel = coordinator("concurrent-test")) {
            AtomicFilePing ping = channel.getProtocolStack().findProtocol(AtomicFilePing.class);
            int before = ping.failedWrites();
            Runnable rewrites = () -> {
                for (int i = 0; i < 2_000; i++) {
                    ping.rewrite();
                }
            };
            Thread other = new Thread(rewrites, "discovery-rewriter");
            other.start();
            try {
                rewrites.run();
            } finally {
                other.join();
            }

            assertThat(ping.failedWrites() - before).as("writes that failed").isZero();
            assertThat(Files.readAllBytes(listFile(dir.resolve("concurrent-test")))).isNotEmpty();
        }
    }

    /** A loopback channel alone in {@code cluster}, so its coordinator, discovering through {@link #dir}. */
    private JChannel coordinator(String cluster) throws Exception {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster(cluster).build();
        JChannel channel = JGroupsStacks.create(config).name("coordinator");
        try {
            channel.connect(cluster);
        } catch (Exception e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    private static Path listFile(Path clusterDir) throws Exception {
        try (Stream<Path> files = Files.list(clusterDir)) {
            List<Path> lists = files.filter(f -> f.getFileName().toString().endsWith(".list")).toList();
            assertThat(lists).hasSize(1);
            return lists.get(0);
        }
    }
}
