package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.benchmarks.nemesis.FaultSchedule.Kind;
import io.neptune.benchmarks.nemesis.FaultSchedule.Planned;
import io.neptune.core.FailoverMode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
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
        assertThat(drawn).containsAll(Kind.defaults()).noneMatch(Kind::isPlacement);
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
            assertThat(FaultSchedule.generate(seed, 3, true, Duration.ofSeconds(45), Kind.defaults()))
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

    @Test
    void theDefaultKindsAreEveryFaultAndNoPlacementChange() {
        assertThat(Kind.defaults()).hasSize(Kind.values().length - 2).noneMatch(Kind::isPlacement);
        assertThat(Kind.ofLabel("move-replica").isPlacement()).isTrue();
        assertThat(Kind.ofLabel("move-primary").isPlacement()).isTrue();
        assertThat(FaultSchedule.generate(3, 5, true, Duration.ofSeconds(45)).placements()).isEmpty();
    }

    @Test
    void placementChangesAreASecondTrackThatLeavesTheFaultsAsTheyWere() {
        int[] duringAFault = {0};
        int[] total = {0};
        for (long seed = 0; seed < 100; seed++) {
            boolean quick = seed % 2 == 0;
            Duration duration = quick ? Duration.ofSeconds(45) : Duration.ofMinutes(3);
            Set<Kind> with = EnumSet.copyOf(Kind.defaults());
            with.addAll(List.of(Kind.MOVE_REPLICA, Kind.MOVE_PRIMARY));
            FaultSchedule plain = FaultSchedule.generate(seed, 5, quick, duration);
            FaultSchedule placed = FaultSchedule.generate(seed, 5, quick, duration, with);
            assertThat(placed.faults()).as("seed %d", seed).isEqualTo(plain.faults());
            assertThat(placed).isEqualTo(FaultSchedule.generate(seed, 5, quick, duration, with));
            List<Planned> changes = placed.placements();
            assertThat(changes).as("seed %d", seed).isNotEmpty()
                    .allMatch(c -> c.kind().isPlacement() && c.at().plus(c.length()).compareTo(duration) <= 0);
            for (int i = 1; i < changes.size(); i++) {
                assertThat(changes.get(i).number()).isEqualTo(i + 1);
                assertThat(changes.get(i).at()).isGreaterThan(changes.get(i - 1).at());
            }
            changes.stream().filter(c -> plain.faults().stream().anyMatch(f -> f.at().compareTo(c.at()) <= 0
                    && f.at().plus(f.length()).compareTo(c.at()) > 0)).forEach(c -> duringAFault[0]++);
            total[0] += changes.size();
        }
        // they start while a fault is in force about as often as a fault is (that is their point)
        assertThat(duringAFault[0]).as("of %d changes", total[0]).isGreaterThan(total[0] / 5);
        List<Planned> onlyPrimaries = FaultSchedule.generate(5, 5, true, Duration.ofSeconds(45),
                EnumSet.of(Kind.MOVE_PRIMARY)).placements();
        assertThat(onlyPrimaries).isNotEmpty().allMatch(c -> c.kind() == Kind.MOVE_PRIMARY);
        assertThat(FaultSchedule.generate(5, 5, true, Duration.ofSeconds(45), EnumSet.of(Kind.MOVE_PRIMARY)).faults())
                .as("placement changes only: no fault").isEmpty();
    }

    @Test
    void placementChangesAreRefusedOutsideMajorityModeNamingTheOption() {
        Set<Kind> with = EnumSet.of(Kind.KILL, Kind.MOVE_REPLICA);
        FaultSchedule.checkPlacement(with, FailoverMode.MAJORITY, 2);
        FaultSchedule.checkPlacement(with, FailoverMode.MAJORITY, 3);
        FaultSchedule.checkPlacement(Kind.defaults(), FailoverMode.FAIL_STOP, 1);
        assertThatThrownBy(() -> FaultSchedule.checkPlacement(with, FailoverMode.FAIL_STOP, 2))
                .hasMessageContaining("--faults move-replica").hasMessageContaining("--mode majority")
                .hasMessageContaining("--mode fail-stop");
        assertThatThrownBy(() -> FaultSchedule.checkPlacement(EnumSet.of(Kind.MOVE_PRIMARY), FailoverMode.MAJORITY, 1))
                .hasMessageContaining("--faults move-primary").hasMessageContaining("--level 2 or 3");
    }
}
