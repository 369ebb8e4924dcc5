package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.benchmarks.nemesis.FaultSchedule.Kind;
import io.neptune.benchmarks.nemesis.FaultSchedule.Planned;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A run is reproducible from its seed, and every schedule fits its run. */
class FaultScheduleTest {
    @Test
    void sameSeedGivesTheSameScheduleAndAnotherSeedAnotherOne() {
        FaultSchedule first = FaultSchedule.generate(7, 5, false, Duration.ofMinutes(5));
        assertThat(FaultSchedule.generate(7, 5, false, Duration.ofMinutes(5))).isEqualTo(first);
        assertThat(FaultSchedule.generate(8, 5, false, Duration.ofMinutes(5))).isNotEqualTo(first);
    }

    @Test
    void faultsDoNotOverlapAndEndWithinTheDuration() {
        for (long seed = 0; seed < 200; seed++) {
            Duration duration = Duration.ofSeconds(60 + seed);
            List<Planned> faults = FaultSchedule.generate(seed, 5, seed % 2 == 0, duration).faults();
            assertThat(faults).as("seed %d", seed).isNotEmpty();
            for (int i = 0; i < faults.size(); i++) {
                Planned fault = faults.get(i);
                assertThat(fault.number()).isEqualTo(i + 1);
                assertThat(fault.at().plus(fault.length())).as("seed %d: %s", seed, fault).isLessThanOrEqualTo(duration);
                if (i > 0) {
                    Planned before = faults.get(i - 1);
                    assertThat(fault.at()).as("seed %d: %s after %s", seed, fault, before)
                            .isGreaterThanOrEqualTo(before.at().plus(before.length()));
                }
            }
        }
    }

    @Test
    void aQuickRunStartsWithAPauseAPartitionAndAKill() {
        for (long seed = 0; seed < 50; seed++) {
            List<Kind> kinds = FaultSchedule.generate(seed, 3, true, Duration.ofSeconds(45)).faults().stream()
                    .map(Planned::kind).limit(3).toList();
            assertThat(kinds).as("seed %d", seed).hasSize(3)
                    .anyMatch(k -> k == Kind.PAUSE || k == Kind.PAUSE_PRIMARY)
                    .anyMatch(Kind::isPartition)
                    .contains(Kind.KILL);
        }
    }

    @Test
    void aFullScheduleDrawsEveryKindOverManySeeds() {
        List<Kind> drawn = new java.util.ArrayList<>();
        for (long seed = 0; seed < 100; seed++) {
            FaultSchedule.generate(seed, 5, false, Duration.ofMinutes(5)).faults().forEach(f -> drawn.add(f.kind()));
        }
        assertThat(drawn).contains(Kind.values());
    }

    @Test
    void threeNodesNeverGetARing() {
        for (long seed = 0; seed < 100; seed++) {
            assertThat(FaultSchedule.generate(seed, 3, false, Duration.ofMinutes(5)).faults())
                    .noneMatch(f -> f.kind() == Kind.PARTITION_RING);
        }
    }

    @Test
    void aRestrictedScheduleHasOnlyTheAllowedKindsAndTheFullOneIsUnchanged() {
        for (long seed = 1; seed <= 20; seed++) {
            assertThat(FaultSchedule.generate(seed, 3, true, Duration.ofSeconds(45), EnumSet.allOf(Kind.class)))
                    .isEqualTo(FaultSchedule.generate(seed, 3, true, Duration.ofSeconds(45)));
            List<Planned> pauses = FaultSchedule.generate(seed, 3, true, Duration.ofSeconds(45),
                    EnumSet.of(Kind.PAUSE, Kind.PAUSE_PRIMARY)).faults();
            assertThat(pauses).isNotEmpty().allMatch(f -> f.kind() == Kind.PAUSE || f.kind() == Kind.PAUSE_PRIMARY);
        }
        assertThatThrownBy(() -> Kind.ofLabel("flood")).hasMessageContaining("'flood'")
                .hasMessageContaining("partition-halves");
        assertThatThrownBy(() -> FaultSchedule.generate(1, 3, false, Duration.ofMinutes(5),
                EnumSet.of(Kind.PARTITION_RING))).hasMessageContaining("partition-ring needs 5");
    }
}
