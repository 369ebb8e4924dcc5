package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Key to partition mapping: integers modulo the count, everything else by a stable hash. */
class PartitionsTest {

    @Test
    void integersMapModuloThePartitionCount() {
        assertThat(Partitions.of(0, 8)).isZero();
        assertThat(Partitions.of(5, 8)).isEqualTo(5);
        assertThat(Partitions.of(13, 8)).isEqualTo(5);
        assertThat(Partitions.of(-1, 8)).isEqualTo(7);
        assertThat(Partitions.of(Integer.MIN_VALUE, 7)).isEqualTo(Math.floorMod(Integer.MIN_VALUE, 7));
        assertThat(Partitions.of(10L, 8)).isEqualTo(2);
        assertThat(Partitions.of(Long.MAX_VALUE, 1000)).isEqualTo((int) (Long.MAX_VALUE % 1000));
        assertThat(Partitions.of(Long.MIN_VALUE, 3)).isEqualTo((int) Math.floorMod(Long.MIN_VALUE, 3L));
        assertThat(Partitions.of((short) 9, 4)).isEqualTo(1);
    }

    @Test
    void inRangeIntIsThePartitionItself() {
        for (int p = 0; p < 32; p++) {
            assertThat(Partitions.of(p, 32)).isEqualTo(p);
        }
    }

    @Test
    void stringsHashTheSameOnEveryJvm() {
        // Golden values of 32-bit FNV-1a over the UTF-8 bytes: a change here breaks mixed-version clusters.
        assertThat(Partitions.of("user-42", 8)).isEqualTo(3);
        assertThat(Partitions.of("user-42", 1000)).isEqualTo(499);
        assertThat(Partitions.of("", 1000)).isEqualTo(965);
        assertThat(Partitions.of("a", 1000)).isEqualTo(924);
        assertThat(Partitions.of("neptune", 1000)).isEqualTo(690);
        assertThat(Partitions.of("ключ", 1000)).isEqualTo(817);
    }

    @Test
    void mappingIsStableAcrossCalls() {
        for (int i = 0; i < 1000; i++) {
            String key = "key-" + i;
            assertThat(Partitions.of(key, 13)).isEqualTo(Partitions.of(new String(key.toCharArray()), 13));
        }
    }

    @Test
    void byteArraysHashLikeTheirUtf8String() {
        for (String key : new String[] {"", "a", "user-42", "ключ"}) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            assertThat(Partitions.of(bytes, 97)).as(key).isEqualTo(Partitions.of(key, 97));
        }
    }

    @Test
    void otherKeysHashTheirToString() {
        Object key = new Object() {
            @Override
            public String toString() {
                return "user-42";
            }
        };
        assertThat(Partitions.of(key, 1000)).isEqualTo(Partitions.of("user-42", 1000));
    }

    @Test
    void resultsAreAlwaysInRangeAndSpread() {
        for (int partitions : new int[] {1, 2, 3, 7, 16, 1000, Integer.MAX_VALUE}) {
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < 2000; i++) {
                int p = Partitions.of("k" + i, partitions);
                assertThat(p).isBetween(0, partitions - 1);
                seen.add(p);
                int q = Partitions.of((long) i * 7919 - 1_000_000, partitions);
                assertThat(q).isBetween(0, partitions - 1);
            }
            assertThat(seen).hasSize(Math.min(partitions, seen.size()));
            if (partitions <= 16) {
                assertThat(seen).as("2000 keys over %d partitions hit every one", partitions).hasSize(partitions);
            }
        }
    }

    @Test
    void invalidArguments() {
        assertThatThrownBy(() -> Partitions.of("k", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partitions: 0 (expected: >= 1)");
        assertThatThrownBy(() -> Partitions.of(1, -2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partitions: -2 (expected: >= 1)");
        assertThatThrownBy(() -> Partitions.of(null, 4))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("key");
    }
}
