package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.AtomicFiles;
import io.neptune.server.internal.replication.protocol.Election;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas a {@code majority}-mode partition counts its majority over: at least the configured
 * number ({@code replicas:}), and every replica ever seen hosting the partition, remembered in a file
 * next to the REDO log. A replica restarted alone on the wrong side of a split therefore still knows
 * how many make a majority, even if its config says fewer than there are.
 *
 * <p>Thread-safety: confined to the partition's executor.
 */
final class ReplicaSet {
    private static final Logger logger = LoggerFactory.getLogger(ReplicaSet.class);
    private static final String FILE = "replicas";

    private final String name;
    private final Path file;
    private final int configured;
    private final TreeSet<String> seen = new TreeSet<>();

    ReplicaSet(String name, Path logDirectory, NodeId self, int configured) {
        this.name = name;
        this.file = logDirectory.resolve(FILE);
        this.configured = configured;
        try {
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        seen.add(line.trim());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot read " + file, e);
        }
        add(Set.of(self));
    }

    /** Notes replicas seen hosting the partition; persists them if one is new. */
    void add(Set<NodeId> nodes) {
        boolean changed = false;
        for (NodeId node : nodes) {
            changed |= seen.add(node.value());
        }
        if (!changed) {
            return;
        }
        if (seen.size() > configured && configured > 1) {
            logger.warn("{}: {} replicas seen ({}) but 'replicas' is {}; counting a majority of {}", name, seen.size(),
                    seen, configured, seen.size());
        }
        writeDurably(file, String.join("\n", seen) + "\n", name);
    }

    /**
     * Replaces {@code file} with {@code content}: a forced temporary file, renamed atomically, and the
     * directory forced so the rename survives a machine crash ({@link AtomicFiles#write}).
     */
    static void writeDurably(Path file, String content, String name) {
        try {
            AtomicFiles.write(file, content.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot write " + file, e);
        }
    }

    /** The replicas seen hosting the partition, this one included. */
    Set<String> seen() {
        return Set.copyOf(seen);
    }

    /** The configured count ({@code replicas:}). */
    int configured() {
        return configured;
    }

    /** How many replicas the partition has: the configured count or, if more were seen, those. */
    int size() {
        return Math.max(configured, seen.size());
    }

    /** How many replicas make a majority. */
    int quorum() {
        return Election.quorum(size());
    }
}
