package io.neptune.server;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import io.neptune.server.storage.StorageException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An in-memory level-2 journal per partition: appends are ordered, so replicas agree only if they
 * applied the same writes in the same order. State lives in memory, so a restarted node rebuilds it
 * by re-applying its REDO log (CHECK says nothing was applied). {@link #breakStorage} makes its
 * writes fail the way a full disk fails a database write.
 */
@NeptuneService(name = "journal", partitions = 4, consistency = ConsistencyLevel.LEVEL_2)
public final class JournalTestService {
    /** One entry to append. */
    public record Append(String text) {}

    /** The entry's position. */
    public record Appended(long lsn, int size) {}

    /** Asks for the whole journal. */
    public record ReadAll() {}

    /** The journal of a partition. */
    public record Entries(List<String> entries) {}

    private final ConcurrentHashMap<Integer, List<String>> journals = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Long> applied = new ConcurrentHashMap<>();
    private volatile boolean storageBroken;

    /** While {@code broken}, every write throws the {@link StorageException} a full disk would cause. */
    void breakStorage(boolean broken) {
        storageBroken = broken;
    }

    @Write
    public Appended append(RequestContext context, Append request) {
        if (storageBroken) {
            throw new StorageException("journal#" + context.partition() + ": write failed",
                    new SQLException("No space left on device"));
        }
        List<String> journal = journals.computeIfAbsent(context.partition(), p -> new ArrayList<>());
        synchronized (journal) {
            long last = applied.getOrDefault(context.partition(), 0L);
            if (context.lsn() <= last) { // a new primary's no-op takes an LSN: numbers may be skipped, never reused
                throw new IllegalStateException("partition " + context.partition() + ": lsn " + context.lsn()
                        + " applied after " + last + " (expected: above it)");
            }
            journal.add(request.text());
            applied.put(context.partition(), context.lsn());
            return new Appended(context.lsn(), journal.size());
        }
    }

    @Read
    public Entries all(RequestContext context, ReadAll request) {
        List<String> journal = journals.computeIfAbsent(context.partition(), p -> new ArrayList<>());
        synchronized (journal) {
            return new Entries(List.copyOf(journal));
        }
    }

    @Check
    public boolean check(int partition, long lsn) {
        return applied.getOrDefault(partition, 0L) >= lsn;
    }

    @Digest
    public String digest(int partition) {
        List<String> journal = journals.computeIfAbsent(partition, p -> new ArrayList<>());
        synchronized (journal) {
            return Integer.toHexString(journal.hashCode()) + "/" + journal.size();
        }
    }
}
