package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.Log;
import io.neptune.server.internal.replication.protocol.Election;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who counts towards a {@code majority}-mode partition's majority ({@code docs/protocols/placement.md}):
 * until the first placement change, the implicit {@link ReplicaSet}; from then on the voters of the
 * latest {@link RecordKind#CONFIG} record in the log, committed or not. The configurations from the
 * log's start on are kept in a file {@code members} next to the REDO log (the log drops old records
 * at checkpoints), written before a configuration record is appended and reconciled with the log on
 * start and after every truncation: the log, not the file, says which configurations exist.
 *
 * <p>A replica an operator added starts with an explicit, empty configuration: a learner, which
 * counts for nothing and does not stand until a configuration record names it.
 *
 * <p>Thread-safety: confined to the partition's executor.
 */
final class Membership {
    /** The method name configuration records carry (never executed). */
    static final String METHOD = "$config";
    private static final Logger logger = LoggerFactory.getLogger(Membership.class);
    private static final String FILE = "members";

    /** One configuration: the record at {@code lsn} of {@code epoch} made {@code voters} the voters. */
    record Config(long lsn, long epoch, SortedSet<String> voters) {
        Config {
            voters = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(voters));
        }

        /** The record that logs this configuration. */
        LogRecord record(NodeId origin) {
            return new LogRecord(lsn, epoch, RecordKind.CONFIG, io.neptune.core.internal.wire.RequestId.NONE,
                    origin.value(), 0, METHOD, String.join(",", voters).getBytes(StandardCharsets.UTF_8));
        }

        /** The configuration {@code record} logs. */
        static Config of(LogRecord record) {
            return new Config(record.lsn(), record.epoch(), parseVoters(new String(record.payload(),
                    StandardCharsets.UTF_8)));
        }

        /** {@code lsn epoch a,b,c}: a line of the {@code members} file, and a snapshot's configuration. */
        String encode() {
            return lsn + " " + epoch + " " + String.join(",", voters);
        }

        static Config parse(String line) {
            String[] parts = line.trim().split(" ", 3);
            if (parts.length < 2) {
                throw new IllegalArgumentException("configuration: '" + line + "' (expected: 'lsn epoch a,b,c')");
            }
            return new Config(Long.parseLong(parts[0]), Long.parseLong(parts[1]), parseVoters(parts.length > 2
                    ? parts[2] : ""));
        }

        private static SortedSet<String> parseVoters(String csv) {
            return Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                    .collect(Collectors.toCollection(TreeSet::new));
        }

        @Override
        public String toString() {
            return voters + "@" + lsn;
        }
    }

    private final String name;
    private final Path file;
    private final ReplicaSet implicit;
    /** The view {@link #seen} was last given, and its nodes. */
    private List<Replica> lastView = List.of();
    private Set<NodeId> viewNodes = Set.of();
    /** Ascending by LSN; empty with {@link #explicit} set: a learner. */
    private final List<Config> configs = new ArrayList<>();
    /** Added by an operator: with no configuration, a learner (an empty {@code members} file), not implicit. */
    private final boolean learner;

    /**
     * Loads the replica's membership from {@code logDirectory}; a {@code learner} (created by an
     * operator's add-replica) with no {@code members} file yet starts with an empty explicit one.
     */
    Membership(String name, Path logDirectory, NodeId self, int configured, boolean learner) {
        this.name = name;
        this.file = logDirectory.resolve(FILE);
        this.implicit = new ReplicaSet(name, logDirectory, self, configured);
        try {
            boolean exists = Files.exists(file);
            if (exists) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        configs.add(Config.parse(line));
                    }
                }
            }
            this.learner = learner || (exists && configs.isEmpty());
            if (learner && !exists) {
                persist();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot read " + file, e);
        }
    }

    /** The configuration in force at {@code lsn} as a snapshot offer carries it ({@code "lsn epoch a,b,c"}, empty if implicit). */
    String encodedAt(long lsn) {
        Config c = at(lsn);
        return c == null ? "" : c.encode();
    }

    /** A snapshot carrying {@code members} ({@link #encodedAt}) was installed: its configuration is in force here. */
    void installedEncoded(String members) {
        installed(members.isBlank() ? null : Config.parse(members));
    }

    /** Whether {@code logDirectory} holds an explicit membership (a placement change reached it). */
    static boolean isExplicit(Path logDirectory) {
        return Files.exists(logDirectory.resolve(FILE));
    }

    /**
     * Notes the nodes of {@code view}, the replicas the yellow page shows hosting the partition (the
     * implicit set only grows), and returns them. The yellow page replaces a partition's list when it
     * changes, so the same list as last time costs nothing: every partition calls this every tick.
     */
    Set<NodeId> seen(List<Replica> view) {
        if (view != lastView) {
            Set<NodeId> nodes = new HashSet<>();
            view.forEach(r -> nodes.add(r.node()));
            implicit.add(nodes);
            lastView = view;
            viewNodes = nodes;
        }
        return viewNodes;
    }

    /** Whether a configuration record (or an operator's add-replica) made the replica set explicit. */
    boolean explicit() {
        return learner || !configs.isEmpty();
    }

    /** The latest configuration, or null if there is none (implicit, or a learner never named). */
    @Nullable Config latest() {
        return configs.isEmpty() ? null : configs.get(configs.size() - 1);
    }

    /** Whether {@code node}'s log and votes count towards a majority. */
    boolean counts(NodeId node) {
        if (!explicit()) {
            return true;
        }
        Config c = latest();
        return c != null && c.voters().contains(node.value());
    }

    /** How many replicas the majority is counted over. */
    int size() {
        if (!explicit()) {
            return implicit.size();
        }
        Config c = latest();
        return c == null ? 0 : c.voters().size();
    }

    /** How many counting replicas make a majority; {@link Integer#MAX_VALUE} for a learner that knows no voters. */
    int quorum() {
        int size = size();
        return size == 0 ? Integer.MAX_VALUE : Election.quorum(size);
    }

    /**
     * The voters the first explicit configuration takes over from the implicit set: every replica
     * seen hosting the partition and those in {@code view}; null if fewer than the configured count
     * are known (a configured replica that never came up has no id to write down).
     */
    @Nullable SortedSet<String> implicitVoters(Collection<Replica> view) {
        SortedSet<String> voters = new TreeSet<>(implicit.seen());
        view.forEach(r -> voters.add(r.node().value()));
        return voters.size() < implicit.configured() ? null : voters;
    }

    /** A configuration record is about to be appended to the log: it is in force from now on. */
    void logging(Config config) {
        Config last = latest();
        if (last != null && config.lsn() <= last.lsn()) {
            throw new IllegalStateException(name + ": configuration " + config + " not after " + last);
        }
        configs.add(config);
        persist();
        logger.info("{}: configuration {} (epoch {}): voters {}", name, config.lsn(), config.epoch(), config.voters());
    }

    /**
     * Configuration records are about to reach the log through log matching: they go into the file
     * first, next to any they may replace ({@link #reconcile} right after log matching keeps only those
     * the log then holds), so after a crash the file never lacks a configuration the log has.
     */
    void incoming(List<Config> incoming) {
        boolean changed = false;
        for (Config c : incoming) {
            if (configs.stream().noneMatch(k -> k.lsn() == c.lsn() && k.epoch() == c.epoch())) {
                configs.add(c);
                changed = true;
            }
        }
        if (changed) {
            configs.sort(java.util.Comparator.comparingLong(Config::lsn).thenComparingLong(Config::epoch));
            persist();
        }
    }

    /**
     * Drops the configurations {@code log} does not hold (a truncation removed them, or a crash came
     * between writing the file and appending the record), and those before the one in force at the
     * log's start; persists the list if it changed.
     */
    void reconcile(Log log) {
        boolean changed = configs.removeIf(c -> c.lsn() > log.lastLsn()
                || (c.lsn() >= log.startLsn() && log.epochOf(c.lsn()) != c.epoch()));
        while (configs.size() > 1 && configs.get(1).lsn() < log.startLsn()) {
            configs.remove(0);
            changed = true;
        }
        if (changed) {
            logger.info("{}: configurations now {}", name, configs);
            persist();
        }
    }

    /** The configuration in force at {@code lsn}, or null if none is known (implicit then). */
    @Nullable Config at(long lsn) {
        Config found = null;
        for (Config c : configs) {
            if (c.lsn() <= lsn) {
                found = c;
            }
        }
        return found;
    }

    /**
     * A snapshot replaced the log up to its boundary: the configuration in force there is
     * {@code config} (none: the source was still implicit there; a learner stays one).
     */
    void installed(@Nullable Config config) {
        if (config == null && configs.isEmpty()) {
            return;
        }
        configs.clear();
        if (config != null) {
            configs.add(config);
        }
        persist();
        logger.info("{}: configuration from a snapshot: {}", name, configs);
    }

    /** Writes the list; with none left and not a learner, removes the file: the set is implicit again. */
    private void persist() {
        if (configs.isEmpty() && !learner) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException(name + ": cannot delete " + file, e);
            }
            return;
        }
        StringBuilder s = new StringBuilder();
        configs.forEach(c -> s.append(c.encode()).append('\n'));
        ReplicaSet.writeDurably(file, s.toString(), name);
    }

    @Override
    public String toString() {
        return explicit() ? String.valueOf(latest()) : "implicit " + implicit.size();
    }
}
