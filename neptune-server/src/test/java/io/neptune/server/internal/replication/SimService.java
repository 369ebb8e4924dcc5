package io.neptune.server.internal.replication;

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
    private State forced = new State();

    /** What the service holds. */
    private static final class State {
        final List<String> applied = new ArrayList<>();
        /** The applied writes' ids, each with the LSN it was applied at. */
        final Map<String, Long> ids = new HashMap<>();
        final Set<Long> executed = new HashSet<>();
        /** Every LSN up to this one counts as applied: the snapshot restored last held them. */
        long restoredUpTo;
        long lastLsn;

        State copy() {
            State c = new State();
            c.applied.addAll(applied);
            c.ids.putAll(ids);
            c.executed.addAll(executed);
            c.restoredUpTo = restoredUpTo;
            c.lastLsn = lastLsn;
            return c;
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
        state = forced.copy();
    }

    @Override
    public ResponseMessage execute(LogRecord record) {
        String id = new String(record.payload(), StandardCharsets.UTF_8);
        Long before = state.ids.putIfAbsent(id, record.lsn());
        if (before != null) {
            history.violation(replica + " applied write " + id + " (request " + record.requestId() + ") a second time,"
                    + " at LSN " + record.lsn() + " (" + record.kind() + ", epoch " + record.epoch() + "), first at LSN "
                    + before);
        }
        history.appliedAt(replica, record.lsn(), id);
        state.applied.add(id);
        state.executed.add(record.lsn());
        state.lastLsn = Math.max(state.lastLsn, record.lsn());
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
        return Optional.of(String.join(",", state.applied));
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
                restored.applied.add(lines[i]);
                restored.ids.put(lines[i], 0L);
            }
        }
        restored.restoredUpTo = lsn;
        restored.lastLsn = lsn;
        state = restored;
    }

    @Override
    public void force(int partition) {
        forced = state.copy();
    }

    /** The ids of the writes applied, in order. */
    List<String> applied() {
        return state.applied;
    }

    boolean holds(String id) {
        return state.ids.containsKey(id);
    }
}
