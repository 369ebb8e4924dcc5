package io.neptune.server;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import io.neptune.server.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory level-1 set of strings per partition: adds commute, so replicas that applied the
 * same adds in any order hold the same set. Level-1 replicas apply their own REDO log in increasing
 * LSN order (the origin's writes and the gossiped ones, each logged once; a repeat of a retried write
 * is skipped), so CHECK is the highest local LSN applied. State lives in memory: a restarted node rebuilds it from its log (CHECK then says
 * nothing was applied) and fetches the rest from its peers. {@link #breakStorage} makes its writes
 * fail the way a full disk fails a database write.
 *
 * <p>Thread-safety: thread-safe; each partition's state is guarded by its own monitor.
 */
@NeptuneService(name = "set", partitions = 4, consistency = ConsistencyLevel.LEVEL_1)
public final class SetTestService {
    /** Adds one element. */
    public record Add(String element) {}

    /** The local LSN the add was applied at and whether the element was new here. */
    public record Added(long lsn, boolean added) {}

    /** Asks for every element. */
    public record ReadMembers() {}

    /** The elements of a partition in sorted order, the local LSN they reflect, and how many adds ran. */
    public record Members(List<String> elements, long lsn, long adds) {}

    private static final class Partition {
        final TreeSet<String> elements = new TreeSet<>();
        long applied;
        long adds;
    }

    private final ConcurrentHashMap<Integer, Partition> partitions = new ConcurrentHashMap<>();

    private Partition partition(int partition) {
        return partitions.computeIfAbsent(partition, p -> new Partition());
    }

    private volatile boolean storageBroken;
    private volatile @Nullable CountDownLatch held;
    private final CountDownLatch holding = new CountDownLatch(1);

    /** While {@code broken}, every write throws the {@link StorageException} a full disk would cause. */
    void breakStorage(boolean broken) {
        storageBroken = broken;
    }

    /**
     * Makes the next add wait until {@code release} opens, holding the partition's replication
     * executor as a slow write would; {@link #awaitHolding} tells when an add is waiting.
     */
    void holdNextAdd(CountDownLatch release) {
        held = release;
    }

    void awaitHolding() throws InterruptedException {
        if (!holding.await(30, TimeUnit.SECONDS)) {
            throw new AssertionError("no add started waiting within 30 s");
        }
    }

    @Write
    public Added add(RequestContext context, Add request) {
        CountDownLatch release = held;
        if (release != null) {
            held = null;
            holding.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the held add was not released within 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while held", e);
            }
        }
        if (storageBroken) {
            throw new StorageException("set#" + context.partition() + ": write failed",
                    new SQLException("No space left on device"));
        }
        Partition state = partition(context.partition());
        synchronized (state) {
            if (context.lsn() <= state.applied) {
                throw new IllegalStateException("partition " + context.partition() + ": lsn " + context.lsn()
                        + " applied after " + state.applied + " (expected: above it)");
            }
            boolean added = state.elements.add(request.element());
            state.applied = context.lsn();
            state.adds++;
            return new Added(context.lsn(), added);
        }
    }

    @Read
    public Members members(RequestContext context, ReadMembers request) {
        Partition state = partition(context.partition());
        synchronized (state) {
            return new Members(List.copyOf(state.elements), state.applied, state.adds);
        }
    }

    @Check
    public boolean check(int partition, long lsn) {
        Partition state = partition(partition);
        synchronized (state) {
            return state.applied >= lsn;
        }
    }

    /** SHA-256 of the sorted elements, and the set's size. */
    @Digest
    public String digest(int partition) {
        Partition state = partition(partition);
        synchronized (state) {
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                for (String element : state.elements) {
                    sha.update(element.getBytes(StandardCharsets.UTF_8));
                    sha.update((byte) '\n');
                }
                return HexFormat.of().formatHex(sha.digest(), 0, 8) + "/" + state.elements.size();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
