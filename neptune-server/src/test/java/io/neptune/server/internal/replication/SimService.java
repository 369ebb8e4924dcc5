package io.neptune.server.internal.replication;

import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.log.LogRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The service of one replica in a simulation: it applies writes by remembering their ids, in order,
 * and checks as it goes what every replica must keep to: no write applied twice (exactly once per
 * request id), and at levels 2 and 3 no two replicas applying different writes at one LSN. Its state
 * lives in memory, so a crash loses it and the replica replays its log.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimService implements PartitionService {
    private final SimHistory history;
    private final String replica;
    private final List<String> applied = new ArrayList<>();
    private final Set<String> ids = new HashSet<>();
    private final Set<Long> executed = new HashSet<>();

    SimService(SimHistory history, String replica) {
        this.history = history;
        this.replica = replica;
    }

    @Override
    public ResponseMessage execute(LogRecord record) {
        String id = new String(record.payload(), StandardCharsets.UTF_8);
        if (!ids.add(id)) {
            history.violation(replica + " applied write " + id + " a second time, at LSN " + record.lsn());
        }
        history.appliedAt(replica, record.lsn(), id);
        applied.add(id);
        executed.add(record.lsn());
        return ResponseMessage.ok(0, record.lsn(), new byte[0]);
    }

    @Override
    public boolean isApplied(long lsn) {
        return executed.contains(lsn);
    }

    @Override
    public boolean hasCheck() {
        return true;
    }

    @Override
    public Optional<String> digest() {
        return Optional.of(String.join(",", applied));
    }

    /** The ids of the writes applied, in order. */
    List<String> applied() {
        return applied;
    }

    boolean holds(String id) {
        return ids.contains(id);
    }
}
