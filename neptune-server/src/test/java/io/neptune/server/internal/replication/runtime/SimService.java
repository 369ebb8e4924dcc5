package io.neptune.server.internal.replication.runtime;

import io.neptune.core.Snapshottable;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.log.LogRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The service of one replica in a simulation: it applies writes by remembering their ids, in order,
 * and checks as it goes what every replica must keep to: no write applied twice (exactly once per
 * request id), and at levels 2 and 3 no two replicas applying different writes at one LSN.
 *
 * <p>Two kinds, as real services come: a volatile one (its state lives in memory; a crash loses it
 * and the replica replays its log) and a durable, {@link Snapshottable} one, like a
 * {@code PartitionDatabase}: a kill keeps its state, a machine crash takes it back to its last
 * {@link #force}, and its CHECK answers from that state, so recovery must neither skip nor repeat a
 * write. The durable kind lets the replicas checkpoint and install snapshots.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimService implements PartitionService, Snapshottable {
    private final SimHistory history;
    private final String replica;
    private final boolean durable;
    private State state = new State();
    /** What survives a machine crash: the state at the last force. */
    private Forced forced = new Forced(state, 0, 0);

    /**
     * What the service holds. A state only grows, by {@link #execute}, until a restore or a machine
     * crash replaces it with another: so what a force kept is a count of its writes, not a copy (a
     * copy at every checkpoint cost more than the checkpoints).
     */
    private static final class State {
        final List<String> applied = new ArrayList<>();
        /** Per applied write, the LSN it was applied at; 0 for those the restored snapshot held. */
        final List<Long> lsns = new ArrayList<>();
        /** The applied writes' ids, each with the LSN it was applied at. */
        final Map<String, Long> ids = new HashMap<>();
        final Set<Long> executed = new HashSet<>();
        /** Every LSN up to this one counts as applied: the snapshot restored last held them. */
        long restoredUpTo;
        /** How many of {@link #applied} the restored snapshot held. */
        int restored;
        long lastLsn;
        /** A hash of {@link #applied} in order, for {@link #digest}. */
        long hash;

        void restored(String id) {
            add(id, 0);
            ids.put(id, 0L);
            restored++;
        }

        /** Adds write {@code id} applied at {@code lsn}; returns the LSN it was applied at before, if it was. */
        @Nullable Long executed(String id, long lsn) {
            add(id, lsn);
            Long before = ids.putIfAbsent(id, lsn);
            executed.add(lsn);
            lastLsn = Math.max(lastLsn, lsn);
            return before;
        }

        private void add(String id, long lsn) {
            applied.add(id);
            lsns.add(lsn);
            hash = hash * 31 + id.hashCode();
        }

        /** The state as it was when it held its first {@code count} writes, its last LSN then {@code lastLsnThen}. */
        State prefix(int count, long lastLsnThen) {
            State c = new State();
            c.restoredUpTo = restoredUpTo;
            for (int i = 0; i < count; i++) {
                if (i < restored) {
                    c.restored(applied.get(i));
                } else {
                    c.executed(applied.get(i), lsns.get(i));
                }
            }
            c.lastLsn = lastLsnThen;
            return c;
        }
    }

    /** The state at a force: the first {@code count} writes of {@code state}, and its last LSN then. */
    private record Forced(State state, int count, long lastLsn) {
        State restore() {
            return state.prefix(count, lastLsn);
        }
    }

    SimService(SimHistory history, String replica, boolean durable) {
        this.history = history;
        this.replica = replica;
        this.durable = durable;
    }

    /** Whether the state outlives the process (and the service takes snapshots). */
    boolean durable() {
        return durable;
    }

    /** A machine crash: back to the state of the last force. */
    void powerLoss() {
        state = forced.restore();
    }

    @Override
    public ResponseMessage execute(LogRecord record) {
        String id = new String(record.payload(), StandardCharsets.UTF_8);
        Long before = state.executed(id, record.lsn());
        if (before != null) {
            history.violation(replica + " applied write " + id + " (request " + record.requestId() + ") a second time,"
                    + " at LSN " + record.lsn() + " (" + record.kind() + ", epoch " + record.epoch() + "), first at LSN "
                    + before);
        }
        history.appliedAt(replica, record.lsn(), id);
        return ResponseMessage.ok(0, record.lsn(), new byte[0]);
    }

    @Override
    public boolean isApplied(long lsn) {
        return lsn <= state.restoredUpTo || state.executed.contains(lsn);
    }

    @Override
    public boolean hasCheck() {
        return true;
    }

    @Override
    public Optional<String> digest() {
        // what the digest is for (telling replicas apart) at a cost that does not grow with the state
        return Optional.of(state.applied.size() + ":" + Long.toHexString(state.hash));
    }

    @Override
    public Optional<Snapshottable> snapshottable() {
        return durable ? Optional.of(this) : Optional.empty();
    }

    @Override
    public long writeSnapshot(int partition, OutputStream out) throws IOException {
        long lsn = Math.max(state.restoredUpTo, state.lastLsn);
        out.write((lsn + "\n" + String.join("\n", state.applied)).getBytes(StandardCharsets.UTF_8));
        return lsn;
    }

    @Override
    public void restoreSnapshot(int partition, InputStream in, long lsn) throws IOException {
        String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1);
        if (Long.parseLong(lines[0]) > lsn) {
            throw new IllegalArgumentException("snapshot lsn: " + lines[0] + " (expected: <= " + lsn + ")");
        }
        State restored = new State();
        for (int i = 1; i < lines.length; i++) {
            if (!lines[i].isEmpty()) {
                restored.restored(lines[i]);
            }
        }
        restored.restoredUpTo = lsn;
        restored.lastLsn = lsn;
        state = restored;
    }

    @Override
    public void force(int partition) {
        forced = new Forced(state, state.applied.size(), state.lastLsn);
    }

    /** The ids of the writes applied, in order. */
    List<String> applied() {
        return state.applied;
    }

    boolean holds(String id) {
        return state.ids.containsKey(id);
    }
}
