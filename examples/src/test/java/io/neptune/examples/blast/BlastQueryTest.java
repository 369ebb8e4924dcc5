package io.neptune.examples.blast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BlastQueryTest {
    @Test
    void readsPastedFastaAndPlainText() {
        assertThat(BlastQuery.parse(">my gene, 3 lines\nacgt\nACGN \r\n uu\n").bases()).isEqualTo("ACGTACGNUU");
        assertThat(BlastQuery.parse("  ryk msw\tbdhvn ").bases()).isEqualTo("RYKMSWBDHVN");
        assertThat(BlastQuery.parse("ACGT").fasta()).isEqualTo(">query\nACGT\n");
    }

    @Test
    void refusesWhatIsNotANucleotideNamingItsPosition() {
        assertThatThrownBy(() -> BlastQuery.parse("ACGT\nACXT")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sequence: 'X' at position 7 is not a nucleotide (expected: IUPAC codes "
                        + BlastQuery.NUCLEOTIDES + ")");
        assertThatThrownBy(() -> BlastQuery.parse("MKVLA*")).hasMessageContaining("'L' at position 4");
        assertThatThrownBy(() -> BlastQuery.parse("AC\u0000GT")).hasMessageContaining("'\\u0000' at position 3");
    }

    @Test
    void refusesEmptyAndTooLongSequences() {
        assertThatThrownBy(() -> BlastQuery.parse(" \n ")).hasMessage("sequence: empty (expected: 1..10000 nucleotides)");
        assertThatThrownBy(() -> BlastQuery.parse(">header only")).hasMessageStartingWith("sequence: empty");
        assertThatThrownBy(() -> BlastQuery.parse(null)).hasMessageStartingWith("sequence: missing");
        assertThat(BlastQuery.parse("A".repeat(BlastQuery.MAX_LENGTH)).bases()).hasSize(BlastQuery.MAX_LENGTH);
        assertThatThrownBy(() -> BlastQuery.parse("A".repeat(BlastQuery.MAX_LENGTH + 1)))
                .hasMessage("sequence: more than 10000 bases (expected: at most 10000)");
    }
}
