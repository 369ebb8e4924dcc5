package io.neptune.examples.search;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Partitions;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Write;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.queryparser.simple.SimpleQueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.jspecify.annotations.Nullable;

/**
 * A partitioned full-text search engine: each partition holds an Apache Lucene index of the
 * documents whose id hashes to it ({@link Partitions#of(Object, int)}); {@code Search} answers one
 * partition's top k by BM25 score with a highlighted snippet, and {@code PutDocument} adds or
 * replaces one document. A query over the whole collection asks every partition and merges the
 * answers with {@link TopHits#merge}; the gateway's {@code GET /api/search} does that with
 * {@code aggregateAsync}.
 *
 * <p>Level 2: adding or replacing a document by id does not commute (two replacements of one id
 * applied in different orders leave different documents), so level 1's write-anywhere would let
 * replicas diverge; at level 2 every replica applies the same writes in the same LSN order, so the
 * replicas of a partition hold the same documents and their digests agree. Reads (the queries,
 * nearly all the traffic) go to any replica, balanced by the client's policy.
 *
 * <p>Each partition's index lives in {@code <data directory>/lucene/partition-<p>}, opened at start
 * for the partitions the node hosts and, for one an operator places on the node later
 * ({@code admin add-replica}), in {@link #partitionAdded}; {@link #partitionRemoved} closes the
 * index of one that leaves and keeps its files. The highest
 * applied LSN is kept in memory and saved in the Lucene commit's user data, so after a crash the
 * index and its LSN come back together and {@link Check} reports exactly what the index holds; the
 * replication engine re-executes the writes logged after it. Commits are lazy (at most
 * {@link PartitionIndex#COMMIT_INTERVAL} apart, and at stop), like H2's.
 *
 * <p>Scores are computed by each partition on its own statistics (no global IDF): documents are
 * spread by hash, so partitions have similar term statistics, the usual trade-off of a
 * document-partitioned engine.
 *
 * <p>Thread-safety: thread-safe; writes of one partition are serialized, reads run concurrently.
 */
@NeptuneService(name = SearchService.NAME, partitions = SearchService.PARTITIONS,
        consistency = ConsistencyLevel.LEVEL_2)
public final class SearchService implements ServiceLifecycle {
    /** The service name. */
    public static final String NAME = "search";
    /** The number of partitions. */
    public static final int PARTITIONS = 8;
    /** Longest id or title, in characters. */
    public static final int MAX_NAME_LENGTH = 200;
    /**
     * Largest document body, in UTF-8 bytes. Small on purpose: a write is a REDO log record, and a
     * replica catching up receives up to 500 records in one frame of at most 4 MiB (the default
     * {@code max-frame-size}), so a record must stay well under 8 KiB. {@link ManPages} keeps the
     * beginning of each page (name, synopsis, the start of the description).
     */
    public static final int MAX_BODY_BYTES = 4 * 1024;
    /** Longest query, in characters. */
    public static final int MAX_QUERY_LENGTH = 500;
    /** The largest k of a query. */
    public static final int MAX_K = 100;

    /**
     * {@code PutDocument}: adds a document, or replaces the one with the same id.
     *
     * @param id 1 to {@value #MAX_NAME_LENGTH} characters; its partition is {@code Partitions.of(id, PARTITIONS)}
     * @param title 1 to {@value #MAX_NAME_LENGTH} characters
     * @param body the text, at most {@value #MAX_BODY_BYTES} UTF-8 bytes
     */
    public record PutDocument(String id, String title, String body) {
        /** Validates the fields. */
        public PutDocument {
            name("id", id);
            name("title", title);
            if (body == null) {
                throw new IllegalArgumentException("body: missing (expected: text of at most " + MAX_BODY_BYTES
                        + " bytes)");
            }
            int bytes = body.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_BODY_BYTES) {
                throw new IllegalArgumentException("body: " + bytes + " bytes (expected: at most " + MAX_BODY_BYTES
                        + ")");
            }
        }

        /** The partition this document belongs to. */
        public int partition() {
            return Partitions.of(id, PARTITIONS);
        }
    }

    /**
     * The outcome of a {@code PutDocument}.
     *
     * @param version the LSN of the write
     */
    public record Indexed(long version) {}

    /**
     * {@code Search}: the best {@code k} documents of one partition for {@code query}.
     *
     * @param query words, all of which must match (in the title or the body); {@code "a phrase"},
     *     {@code -word}, {@code a | b} and {@code prefix*} work as in Lucene's simple query syntax
     * @param k 1 to {@value #MAX_K}
     */
    public record Search(String query, int k) {
        /** Validates the fields. */
        public Search {
            if (query == null || query.isBlank()) {
                throw new IllegalArgumentException("query: " + (query == null ? "missing" : "blank")
                        + " (expected: 1.." + MAX_QUERY_LENGTH + " characters, not all blank)");
            }
            if (query.length() > MAX_QUERY_LENGTH) {
                throw new IllegalArgumentException("query: " + query.length() + " characters (expected: 1.."
                        + MAX_QUERY_LENGTH + ")");
            }
            if (k < 1 || k > MAX_K) {
                throw new IllegalArgumentException("k: " + k + " (expected: 1.." + MAX_K + ")");
            }
        }
    }

    /**
     * One matching document.
     *
     * @param id the document id
     * @param title its title
     * @param score its BM25 score on its partition
     * @param snippet a passage of the body as HTML: text escaped, the matched words in {@code <b>}
     */
    public record Hit(String id, String title, float score, String snippet) {}

    /**
     * One partition's answer.
     *
     * @param hits at most k hits, best first
     * @param version the partition version they were read at
     * @param documents the documents the partition's index held when it searched: while a loader is
     *     still filling the index (the demo's, minutes after the cluster is up), what it has so far
     */
    public record Hits(List<Hit> hits, long version, long documents) {
        /** Copies the list. */
        public Hits {
            hits = List.copyOf(hits);
        }
    }

    private final Map<Integer, PartitionIndex> indexes = new ConcurrentHashMap<>();
    private volatile @Nullable Analyzer analyzer;
    private volatile @Nullable ServiceEnvironment environment;

    private static void name(String field, @Nullable String value) {
        if (value == null || value.isBlank() || value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(field + ": " + (value == null ? "missing" : value.isBlank() ? "blank"
                    : value.length() + " characters") + " (expected: 1.." + MAX_NAME_LENGTH + " characters)");
        }
    }

    @Override
    public void start(ServiceEnvironment environment) {
        Analyzer english = new EnglishAnalyzer();
        analyzer = english;
        this.environment = environment;
        try {
            for (int partition : environment.partitions()) {
                open(environment, english, partition);
            }
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    /** Opens the index of a partition placed on this node while it runs, before any call of it. */
    @Override
    public void partitionAdded(int partition) {
        ServiceEnvironment started = environment;
        Analyzer english = analyzer;
        if (started == null || english == null) {
            throw new IllegalStateException(NAME + ": not started");
        }
        open(started, english, partition);
    }

    /** Closes the index of a partition that left this node; its files stay for a later return. */
    @Override
    public void partitionRemoved(int partition) {
        PartitionIndex index = indexes.remove(partition);
        if (index != null) {
            index.close();
        }
    }

    private void open(ServiceEnvironment environment, Analyzer english, int partition) {
        Path path = environment.dataDirectory().resolve("lucene").resolve("partition-" + partition);
        try {
            indexes.put(partition, PartitionIndex.open(environment.node() + ": " + NAME + "#" + partition, path,
                    english));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the search index in " + path, e);
        }
    }

    @Override
    public void stop() {
        RuntimeException failure = null;
        for (PartitionIndex index : indexes.values()) {
            try {
                index.close();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        indexes.clear();
        Analyzer english = analyzer;
        if (english != null) {
            english.close();
        }
        if (failure != null) {
            throw failure;
        }
    }

    private PartitionIndex index(int partition) {
        PartitionIndex index = indexes.get(partition);
        if (index == null) {
            throw new IllegalStateException("partition: " + partition + " (expected: one of " + indexes.keySet()
                    + ", the partitions this node hosts)");
        }
        return index;
    }

    /** Adds or replaces the document; it must belong to the call's partition. */
    @Write(name = "PutDocument")
    public Indexed put(RequestContext context, PutDocument request) {
        if (request.partition() != context.partition()) {
            throw new IllegalArgumentException("id: '" + request.id() + "' belongs to partition " + request.partition()
                    + " (expected: partition " + context.partition() + ")");
        }
        index(context.partition()).put(context.lsn(), request);
        return new Indexed(context.lsn());
    }

    /** The partition's best {@code k} documents for the query. */
    @Read(name = "Search")
    public Hits search(RequestContext context, Search request) {
        PartitionIndex index = index(context.partition());
        return index.search(query(request.query()), request.k());
    }

    /** CHECK: whether the write with {@code lsn} was applied on {@code partition}. */
    @Check
    public boolean check(int partition, long lsn) {
        return lsn <= index(partition).appliedLsn();
    }

    /** The applied LSN and a hash of the partition's documents (id, title and body, by id). */
    @Digest
    public String digest(int partition) {
        return index(partition).digest();
    }

    /** Parses {@code text} in Lucene's simple query syntax over title (weight 2) and body, every word required. */
    private Query query(String text) {
        Analyzer english = analyzer;
        if (english == null) {
            throw new IllegalStateException(NAME + ": not started");
        }
        int flags = SimpleQueryParser.AND_OPERATOR | SimpleQueryParser.NOT_OPERATOR | SimpleQueryParser.OR_OPERATOR
                | SimpleQueryParser.PHRASE_OPERATOR | SimpleQueryParser.PRECEDENCE_OPERATORS
                | SimpleQueryParser.PREFIX_OPERATOR | SimpleQueryParser.ESCAPE_OPERATOR
                | SimpleQueryParser.WHITESPACE_OPERATOR;
        SimpleQueryParser parser = new SimpleQueryParser(english,
                Map.of(PartitionIndex.TITLE, 2f, PartitionIndex.BODY, 1f), flags);
        parser.setDefaultOperator(BooleanClause.Occur.MUST);
        Query query = parser.parse(text);
        return query == null ? new MatchNoDocsQuery("only stop words") : query;
    }
}
