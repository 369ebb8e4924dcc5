package io.neptune.examples.blast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.examples.blast.SyntheticSequences.Sequence;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyntheticSequencesTest {
    @Test
    void theSameSeedGivesTheSameSequencesAndAnotherSeedOthers() {
        List<Sequence> first = new SyntheticSequences(3, 5, 4).generate();
        assertThat(new SyntheticSequences(3, 5, 4).generate()).isEqualTo(first);
        assertThat(new SyntheticSequences(4, 5, 4).generate()).isNotEqualTo(first);
    }

    @Test
    void familiesOfMembersWithIdsNamingThemAndOnlyNucleotides() {
        List<Sequence> sequences = new SyntheticSequences(1, 3, 2).generate();
        assertThat(sequences).extracting(Sequence::id)
                .containsExactly("fam0000-00", "fam0000-01", "fam0001-00", "fam0001-01", "fam0002-00", "fam0002-01");
        for (Sequence sequence : sequences) {
            assertThat(sequence.bases()).matches("[ACGT]+");
            assertThat(sequence.bases().length()).isBetween(SyntheticSequences.MIN_LENGTH * 9 / 10,
                    SyntheticSequences.MAX_LENGTH * 11 / 10);
        }
    }

    @Test
    void membersOfAFamilyAreCloseAndOtherFamiliesAreNot() {
        List<Sequence> sequences = new SyntheticSequences(9, 2, 6).generate();
        String query = new SyntheticSequences(9, 2, 6).exampleQuery(0);
        assertThat(query).hasSize(300).matches("[ACGT]+");
        // Shared 12-mers: a relative shares many with the query, an unrelated sequence next to none.
        for (Sequence sequence : sequences) {
            long shared = sharedWords(query, sequence.bases());
            if (sequence.id().startsWith("fam0000")) {
                assertThat(shared).as(sequence.id()).isGreaterThan(5);
            } else {
                assertThat(shared).as(sequence.id()).isLessThan(3);
            }
        }
    }

    @Test
    void refusesEmptySetsAndUnknownFamilies() {
        assertThatThrownBy(() -> new SyntheticSequences(1, 0, 3)).hasMessageContaining("families: 0");
        assertThatThrownBy(() -> new SyntheticSequences(1, 2, 3).exampleQuery(2))
                .hasMessage("family: 2 (expected: 0..1)");
    }

    private static long sharedWords(String query, String bases) {
        java.util.Set<String> words = new java.util.HashSet<>();
        for (int i = 0; i + 12 <= bases.length(); i++) {
            words.add(bases.substring(i, i + 12));
        }
        long shared = 0;
        for (int i = 0; i + 12 <= query.length(); i++) {
            shared += words.contains(query.substring(i, i + 12)) ? 1 : 0;
        }
        return shared;
    }
}
