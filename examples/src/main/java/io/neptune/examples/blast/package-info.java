/**
 * The BLAST example (dissertation chapter 2): NCBI's {@code blastn}, unmodified, as a partitioned
 * Neptune service. A nucleotide database is split into partitions, each a BLAST database of its own
 * ({@code makeblastdb}); every node hosting a partition runs {@code blastn} over it as a
 * {@linkplain io.neptune.server.process process-backed service}. A query is scattered to every
 * partition and the hits are merged by score; partitions that do not answer are reported (harvest),
 * as in the document search example.
 *
 * <p>Starting points: {@link io.neptune.examples.blast.BlastDatabase} (builds the partitions and
 * the {@code blastn} service config), {@link io.neptune.examples.blast.SyntheticSequences} (the
 * seeded nucleotide set the database holds) and {@link io.neptune.examples.blast.BlastHits}
 * (reading {@code blastn}'s tabular output and the merge).
 */
@NullMarked
package io.neptune.examples.blast;

import org.jspecify.annotations.NullMarked;
