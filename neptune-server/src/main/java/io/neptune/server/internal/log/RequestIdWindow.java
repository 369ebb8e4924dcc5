package io.neptune.server.internal.log;

import io.neptune.core.internal.wire.RequestId;
import java.util.ArrayList;
import java.util.List;

/**
 * The most recent request ids of a log and the LSN of each, oldest first, at most {@code capacity}
 * of them: a ring of (id, LSN) in arrival order, which is LSN order, and an open-addressing table
 * (linear probing, at most half full) from id to ring slot. About 36 bytes per id once full,
 * against about 117 for the {@code LinkedHashMap<RequestId, Long>} it replaced, which let a node's
 * logs, each up to 100,000 ids, hold up to ~11 MiB apiece ({@code docs/PERFORMANCE.md}, "Footprint").
 * Both grow with the ids held, so a log that took few writes holds little.
 *
 * <p>Thread-safety: not thread-safe; {@link LogIndex} is guarded by its log's lock.
 */
final class RequestIdWindow {
    private static final int INITIAL_SLOTS = 64;
    /**
     * Ring slots per chunk of {@link #ring}, and table entries per chunk of {@link #table}: chunks of
     * 96 and 256 KiB, below half of G1's smallest region, so that none is a humongous object (one of
     * those takes whole regions: a full window in three 800 KB arrays took 5 MiB of a 256 MiB heap).
     */
    private static final int RING_CHUNK_SHIFT = 12;
    private static final int TABLE_CHUNK_SHIFT = 16;

    private final int capacity;
    /**
     * Mixed into every id's hash: clients choose their ids, and with a fixed hash ids made to share a
     * home slot (high = c ^ rotl(low, 32)) made one run of the table that every id after them probed
     * (100,000 of them: 20 s of adds under the log's lock, measured in review).
     */
    private final long seed = java.util.concurrent.ThreadLocalRandom.current().nextLong();
    /** Entry i of the window is at ring slot (head + i) % slots: its id's halves and its LSN, three longs. */
    private long[][] ring = new long[0][];
    private int slots;
    private int head;
    private int size;
    /** Ring slot + 1 of each id, by hash; 0 is free. Its length is a power of two, at least twice the ring's. */
    private int[][] table = new int[0][];
    private int tableLength;

    /** An empty window of at most {@code capacity} ids. */
    RequestIdWindow(int capacity) {
        if (capacity < 1 || capacity > io.neptune.server.LogRetentionConfig.MAX_REQUEST_IDS) {
            // above it, the table's length (4 × capacity) and the id files' sizes overflow an int
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: 1.."
                    + io.neptune.server.LogRetentionConfig.MAX_REQUEST_IDS + ")");
        }
        this.capacity = capacity;
    }

    int size() {
        return size;
    }

    /** The LSN of {@code id}, or -1 if the window does not hold it. */
    long lsnOf(RequestId id) {
        int slot = find(id.high(), id.low());
        return slot < 0 ? -1 : field(slot, 2);
    }

    /**
     * Adds {@code id} at {@code lsn}, which must not be below the newest LSN held, unless the window
     * holds it already; the oldest id goes if the window is full. {@link RequestId#NONE} is not held.
     */
    void addIfAbsent(RequestId id, long lsn) {
        if (id.isNone() || find(id.high(), id.low()) >= 0) {
            return;
        }
        long newest = size == 0 ? Long.MIN_VALUE : field(ringSlot(size - 1), 2);
        if (lsn < newest) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: >= " + newest + ", the newest held)");
        }
        if (size == capacity) {
            removeOldest();
        } else if (size == slots) {
            grow();
        }
        int slot = ringSlot(size++);
        set(slot, id.high(), id.low(), lsn);
        insert(slot);
    }

    /** Forgets the ids above {@code lsn}: they are the newest. */
    void removeAbove(long lsn) {
        while (size > 0 && field(ringSlot(size - 1), 2) > lsn) {
            delete(ringSlot(size - 1));
            size--;
        }
    }

    /** The ids at or below {@code lsn}, oldest first. */
    List<KnownRequest> upTo(long lsn) {
        List<KnownRequest> requests = new ArrayList<>();
        for (int i = 0; i < size && field(ringSlot(i), 2) <= lsn; i++) {
            int slot = ringSlot(i);
            requests.add(new KnownRequest(new RequestId(field(slot, 0), field(slot, 1)), field(slot, 2)));
        }
        return requests;
    }

    void clear() {
        ring = new long[0][];
        slots = 0;
        table = new int[0][];
        tableLength = 0;
        head = 0;
        size = 0;
    }

    private int ringSlot(int i) {
        int slot = head + i;
        return slot >= slots ? slot - slots : slot;
    }

    /** Field {@code f} of ring slot {@code slot}: 0 the id's high half, 1 its low half, 2 the LSN. */
    private long field(int slot, int f) {
        return ring[slot >>> RING_CHUNK_SHIFT][(slot & ((1 << RING_CHUNK_SHIFT) - 1)) * 3 + f];
    }

    private void set(int slot, long high, long low, long lsn) {
        long[] chunk = ring[slot >>> RING_CHUNK_SHIFT];
        int at = (slot & ((1 << RING_CHUNK_SHIFT) - 1)) * 3;
        chunk[at] = high;
        chunk[at + 1] = low;
        chunk[at + 2] = lsn;
    }

    private int entry(int i) {
        return table[i >>> TABLE_CHUNK_SHIFT][i & ((1 << TABLE_CHUNK_SHIFT) - 1)];
    }

    private void setEntry(int i, int value) {
        table[i >>> TABLE_CHUNK_SHIFT][i & ((1 << TABLE_CHUNK_SHIFT) - 1)] = value;
    }

    private void removeOldest() {
        delete(head);
        head = head + 1 == slots ? 0 : head + 1;
        size--;
    }

    /** Doubles the ring (up to the capacity), oldest id first at slot 0, and rebuilds the table. */
    private void grow() {
        int length = (int) Math.min(capacity, Math.max(INITIAL_SLOTS, 2L * slots));
        long[][] grown = chunks(length, RING_CHUNK_SHIFT, 3);
        for (int i = 0; i < size; i++) {
            int from = ringSlot(i);
            long[] chunk = grown[i >>> RING_CHUNK_SHIFT];
            int at = (i & ((1 << RING_CHUNK_SHIFT) - 1)) * 3;
            chunk[at] = field(from, 0);
            chunk[at + 1] = field(from, 1);
            chunk[at + 2] = field(from, 2);
        }
        ring = grown;
        slots = length;
        head = 0;
        tableLength = Integer.highestOneBit(length * 4 - 1);   // a power of two >= 2 × length
        int chunk = Math.min(tableLength, 1 << TABLE_CHUNK_SHIFT);
        table = new int[tableLength / chunk][];
        for (int c = 0; c < table.length; c++) {
            table[c] = new int[chunk];
        }
        for (int i = 0; i < size; i++) {
            insert(i);
        }
    }

    /** Chunks holding {@code length} slots of {@code width} longs each, {@code 1 << shift} slots a chunk. */
    private static long[][] chunks(int length, int shift, int width) {
        int perChunk = 1 << shift;
        long[][] chunks = new long[(length + perChunk - 1) / perChunk][];
        for (int c = 0; c < chunks.length; c++) {
            chunks[c] = new long[Math.min(perChunk, length - c * perChunk) * width];
        }
        return chunks;
    }

    /** The table entry where {@code id}'s probe starts; the table must not be empty. */
    int home(long high, long low) {
        long h = mix(mix(high ^ seed) ^ low);
        return (int) (h ^ (h >>> 32)) & (tableLength - 1);
    }

    /** SplitMix64's finalizer: every bit of the result depends on every bit of {@code z}. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The ring slot of the id, or -1. */
    private int find(long high, long low) {
        if (tableLength == 0) {
            return -1;
        }
        int mask = tableLength - 1;
        for (int i = home(high, low); entry(i) != 0; i = (i + 1) & mask) {
            int slot = entry(i) - 1;
            if (field(slot, 0) == high && field(slot, 1) == low) {
                return slot;
            }
        }
        return -1;
    }

    private void insert(int slot) {
        int mask = tableLength - 1;
        int i = home(field(slot, 0), field(slot, 1));
        while (entry(i) != 0) {
            i = (i + 1) & mask;
        }
        setEntry(i, slot + 1);
    }

    /** Removes the table entry of ring slot {@code slot}, shifting later entries of its probe run back. */
    private void delete(int slot) {
        int mask = tableLength - 1;
        int i = home(field(slot, 0), field(slot, 1));
        while (entry(i) != slot + 1) {
            i = (i + 1) & mask;
        }
        // Knuth's algorithm R: move back each later entry whose home does not lie cyclically in (i, j]
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (entry(j) == 0) {
                break;
            }
            int other = entry(j) - 1;
            int k = home(field(other, 0), field(other, 1));
            boolean stays = i <= j ? i < k && k <= j : i < k || k <= j;
            if (!stays) {
                setEntry(i, entry(j));
                i = j;
            }
        }
        setEntry(i, 0);
    }

    @Override
    public String toString() {
        return "RequestIdWindow[" + size + " of " + capacity + "]";
    }
}
