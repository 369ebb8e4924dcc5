package io.neptune.server.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.internal.wire.RequestId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link RequestIdWindow} against the {@code LinkedHashMap} it replaced, under random operations. */
class RequestIdWindowTest {
    @Test
    void behavesLikeAnInsertionOrderedMapOfTheMostRecentIds() {
        for (long seed = 1; seed <= 20; seed++) {
            compareWithModel(seed, 1 + new SplittableRandom(seed).nextInt(300), 20_000, 0.002);
        }
    }

    /**
     * Clients choose their ids: with the fixed multiplicative hash, ids of the form high = c ^ rotl(low, 32)
     * all started their probe at one entry, so every add and lookup walked one run as long as the window.
     */
    @Test
    void idsMadeToCollideUnderAFixedHashSpreadOverTheTable() {
        RequestIdWindow window = new RequestIdWindow(10_000);
        for (long low = 1; low <= 10_000; low++) {
            window.addIfAbsent(new RequestId(0x5EED ^ Long.rotateLeft(low, 32), low), low);
        }
        java.util.Set<Integer> homes = new java.util.HashSet<>();
        for (long low = 1; low <= 10_000; low++) {
            homes.add(window.home(0x5EED ^ Long.rotateLeft(low, 32), low));
        }
        // 10,000 ids over a table of 32,768 entries: about 8,600 distinct homes if they spread at random; 1 before
        assertThat(homes).hasSizeGreaterThan(7_500);
        assertThat(window.lsnOf(new RequestId(0x5EED ^ Long.rotateLeft(5L, 32), 5))).isEqualTo(5);
    }

    @Test
    void largeWindowsSpanSeveralChunksOfRingAndTable() {
        compareWithModel(21, 40_000, 150_000, 0);   // 10 ring chunks, a table of 131,072 in 2 chunks
    }

    /**
     * Runs {@code operations} random ones (80% adds, 1% cuts, clears at {@code clears}, the rest
     * lookups) on a window of {@code capacity} and on the model, and compares them throughout.
     */
    private static void compareWithModel(long seed, int capacity, int operations, double clears) {
        SplittableRandom random = new SplittableRandom(seed);
        RequestIdWindow window = new RequestIdWindow(capacity);
        Map<RequestId, Long> model = new LinkedHashMap<>();
        List<RequestId> seen = new ArrayList<>();
        long lsn = 1;
        for (int op = 0; op < operations; op++) {
            double kind = random.nextDouble();
            if (kind < 0.80) {
                // a new id, or now and then one seen before (a retry); few bits so that hashes collide
                RequestId id = !seen.isEmpty() && random.nextInt(10) == 0 ? seen.get(random.nextInt(seen.size()))
                        : new RequestId(random.nextInt(64), random.nextLong(1, 1 << 20));
                lsn += random.nextInt(3);
                window.addIfAbsent(id, lsn);
                if (!model.containsKey(id)) {
                    model.put(id, lsn);
                    if (model.size() > capacity) {
                        model.remove(model.keySet().iterator().next());
                    }
                }
                seen.add(id);
            } else if (kind < 0.81) {
                long cut = Math.max(1, lsn - random.nextInt(20));
                window.removeAbove(cut);
                model.values().removeIf(v -> v > cut);
                lsn = cut;
            } else if (kind < 0.81 + clears) {
                window.clear();
                model.clear();
            } else {
                RequestId id = seen.isEmpty() ? new RequestId(1, 1) : seen.get(random.nextInt(seen.size()));
                assertThat(window.lsnOf(id)).as("seed %d, op %d", seed, op).isEqualTo(model.getOrDefault(id, -1L));
            }
        }
        assertThat(window.size()).isEqualTo(model.size());
        List<KnownRequest> expected = new ArrayList<>();
        model.forEach((id, at) -> expected.add(new KnownRequest(id, at)));
        assertThat(window.upTo(Long.MAX_VALUE)).as("seed %d", seed).isEqualTo(expected);
    }

    @Test
    void refusesAnLsnBelowTheNewestAndIgnoresNone() {
        RequestIdWindow window = new RequestIdWindow(10);
        window.addIfAbsent(new RequestId(1, 2), 5);
        window.addIfAbsent(RequestId.NONE, 6);
        assertThat(window.size()).isEqualTo(1);
        assertThat(window.lsnOf(RequestId.NONE)).isEqualTo(-1);
        assertThatThrownBy(() -> window.addIfAbsent(new RequestId(3, 4), 4))
                .hasMessage("lsn: 4 (expected: >= 5, the newest held)");
        assertThat(window.upTo(4)).isEmpty();
        assertThat(window.upTo(5)).containsExactly(new KnownRequest(new RequestId(1, 2), 5));
    }
}
