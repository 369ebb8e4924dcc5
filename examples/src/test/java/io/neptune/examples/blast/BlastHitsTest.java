package io.neptune.examples.blast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.examples.blast.BlastHits.Hit;
import java.util.List;
import org.junit.jupiter.api.Test;

class BlastHitsTest {
    @Test
    void keepsEachSequencesBestPairBestFirst() {
        String output = """
                fam0001-02\t120\t3.5e-30
                fam0001-00\t555\t2.20e-159
                fam0001-02\t410.5\t1.0e-110
                fam0007-01\t41.0\t0.002

                """;
        assertThat(BlastHits.parse(output)).containsExactly(new Hit("fam0001-00", 555, 2.2e-159),
                new Hit("fam0001-02", 410.5, 1.0e-110), new Hit("fam0007-01", 41, 0.002));
    }

    @Test
    void emptyOutputIsNoHits() {
        assertThat(BlastHits.parse("")).isEmpty();
        assertThat(BlastHits.parse("# comment\n\n")).isEmpty();
    }

    @Test
    void aLineInAnotherFormatIsAnErrorNamingIt() {
        assertThatThrownBy(() -> BlastHits.parse("a\t1\t1e-5\nquery\tfam1\t99.5\t300\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("blastn output line 2: 'query\tfam1\t99.5\t300'")
                .hasMessageContaining(BlastHits.OUTPUT_FORMAT);
        assertThatThrownBy(() -> BlastHits.parse("a\tmany\t1e-5")).hasMessageContaining("line 1");
    }

    @Test
    void mergesPartitionsByScoreThenEvalueThenIdAndKeepsK() {
        List<Hit> merged = BlastHits.merge(List.of(
                List.of(new Hit("b", 300, 1e-80), new Hit("d", 50, 1e-3)),
                List.of(new Hit("a", 300, 1e-80), new Hit("c", 300, 1e-79)),
                List.of()), 3);
        assertThat(merged).extracting(Hit::id).containsExactly("a", "b", "c");
        assertThatThrownBy(() -> BlastHits.merge(List.of(), 0)).hasMessage("k: 0 (expected: >= 1)");
    }
}
