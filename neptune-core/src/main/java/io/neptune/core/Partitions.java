package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Maps partition keys to partition ids. */
public final class Partitions {
    private Partitions() {}

    /**
     * Returns the partition of {@code key} among {@code partitions}: integers are taken modulo the
     * count, strings and byte arrays by a stable FNV-1a hash of their bytes, other values by their
     * {@code toString()}. The result is the same on every JVM.
     */
    public static int of(Object key, int partitions) {
        requireNonNull(key, "key");
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 1)");
        }
        if (key instanceof Integer || key instanceof Long || key instanceof Short || key instanceof Byte) {
            return (int) Math.floorMod(((Number) key).longValue(), (long) partitions);
        }
        byte[] bytes = key instanceof byte[] b
                ? Arrays.copyOf(b, b.length)
                : key.toString().getBytes(StandardCharsets.UTF_8);
        int hash = 0x811c9dc5;
        for (byte b : bytes) {
            hash ^= b & 0xff;
            hash *= 0x01000193;
        }
        return Math.floorMod(hash, partitions);
    }
}
