/**
 * The document search example (dissertation chapter 2, the Ask Jeeves deployment): a partitioned
 * full-text index, each partition an Apache Lucene index of its share of the documents, replicated
 * at level 2. A query is scattered to every partition and the partial top-k lists are merged by
 * score; partitions that do not answer are reported, not hidden (harvest).
 *
 * <p>Starting points: {@link io.neptune.examples.search.SearchService} (the service),
 * {@link io.neptune.examples.search.TopHits} (the merge), {@link io.neptune.examples.search.ManPages}
 * (the corpus: the system's man pages) and {@link io.neptune.examples.search.DocumentLoader} (indexing
 * a corpus through the cluster).
 */
@NullMarked
package io.neptune.examples.search;

import org.jspecify.annotations.NullMarked;
