package io.neptune.examples.search;

import io.neptune.examples.search.SearchService.Hit;
import io.neptune.examples.search.SearchService.Hits;
import io.neptune.examples.search.SearchService.PutDocument;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.BreakIterator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.uhighlight.DefaultPassageFormatter;
import org.apache.lucene.search.uhighlight.LengthGoalBreakIterator;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's Lucene index: the documents, a near-real-time searcher over them, and the highest
 * applied LSN, saved in each commit's user data so the two are durable together.
 *
 * <p>Thread-safety: thread-safe. Writes (and the digest) hold {@code writeLock}; searches use the
 * {@link SearcherManager} without that lock and see every write that returned before they started.
 */
final class PartitionIndex implements Closeable {
    /** The longest time a write stays uncommitted (in memory only, and in the REDO log). */
    static final Duration COMMIT_INTERVAL = Duration.ofSeconds(1);
    /** Field names. */
    static final String ID = "id";
    static final String TITLE = "title";
    static final String BODY = "body";
    /** The commit user data key of the applied LSN. */
    static final String LSN_KEY = "neptune.applied-lsn";
    /** The target length of a snippet, in characters. */
    static final int SNIPPET_LENGTH = 160;

    private static final Logger logger = LoggerFactory.getLogger(PartitionIndex.class);

    private final String owner;
    private final Directory directory;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final Analyzer analyzer;
    private final Object writeLock = new Object();
    private volatile long appliedLsn;
    /** Writes applied so far; a search first refreshes its searcher if it has not seen them all. */
    private volatile long written;
    /** The {@link #written} count the searcher includes at least. */
    private volatile long refreshed;
    // @GuardedBy("writeLock")
    private long lastCommitNanos = System.nanoTime();
    // @GuardedBy("writeLock")
    private boolean dirty;

    private PartitionIndex(String owner, Directory directory, IndexWriter writer, SearcherManager searchers,
            Analyzer analyzer, long appliedLsn) {
        this.owner = owner;
        this.directory = directory;
        this.writer = writer;
        this.searchers = searchers;
        this.analyzer = analyzer;
        this.appliedLsn = appliedLsn;
    }

    /** Opens (or creates) the index in {@code path}; {@code owner} names it in logs. */
    static PartitionIndex open(String owner, Path path, Analyzer analyzer) throws IOException {
        Directory directory = FSDirectory.open(path);
        try {
            IndexWriterConfig config = new IndexWriterConfig(analyzer)
                    .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
                    // merges in the writing thread: the same writes give the same segments on every replica
                    .setMergeScheduler(new SerialMergeScheduler())
                    .setRAMBufferSizeMB(8);
            IndexWriter writer = new IndexWriter(directory, config);
            long lsn = 0;
            if (DirectoryReader.indexExists(directory)) {
                String saved = userData(writer).get(LSN_KEY); // the opened commit's
                lsn = saved == null ? 0 : Long.parseLong(saved);
            }
            SearcherManager searchers = new SearcherManager(writer, null);
            logger.info("{}: index open in {} ({} documents, applied LSN {})", owner, path, writer.getDocStats().numDocs,
                    lsn);
            return new PartitionIndex(owner, directory, writer, searchers, analyzer, lsn);
        } catch (IOException | RuntimeException e) {
            directory.close();
            throw e;
        }
    }

    private static Map<String, String> userData(IndexWriter writer) {
        Map<String, String> data = new TreeMap<>();
        Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
        if (live != null) {
            live.forEach(e -> data.put(e.getKey(), e.getValue()));
        }
        return data;
    }

    /** The highest LSN applied. */
    long appliedLsn() {
        return appliedLsn;
    }

    /**
     * Adds or replaces {@code document} as the write with {@code lsn} (0: an unreplicated write,
     * not recorded).
     *
     * @throws IllegalStateException if {@code lsn} was already applied (the engine re-executes only
     *     writes {@code CHECK} reported as not applied, so this is a caller's bug)
     */
    void put(long lsn, PutDocument document) {
        synchronized (writeLock) {
            if (lsn != 0 && lsn <= appliedLsn) {
                throw new IllegalStateException(owner + ": lsn " + lsn + " (expected: above the applied LSN "
                        + appliedLsn + ")");
            }
            Document doc = new Document();
            doc.add(new StringField(ID, document.id(), Field.Store.YES));
            doc.add(new TextField(TITLE, document.title(), Field.Store.YES));
            doc.add(new TextField(BODY, document.body(), Field.Store.YES));
            try {
                writer.updateDocument(new Term(ID, document.id()), doc);
                if (lsn != 0) {
                    writer.setLiveCommitData(Map.of(LSN_KEY, Long.toString(lsn)).entrySet());
                }
                dirty = true;
                if (System.nanoTime() - lastCommitNanos >= COMMIT_INTERVAL.toNanos()) {
                    commit();
                }
                if (lsn != 0) {
                    appliedLsn = lsn;
                }
                written++;
            } catch (IOException e) {
                throw new UncheckedIOException(owner + ": cannot index '" + document.id() + "'", e);
            }
        }
    }

    // @GuardedBy("writeLock")
    private void commit() throws IOException {
        if (dirty) {
            writer.commit();
            dirty = false;
        }
        lastCommitNanos = System.nanoTime();
    }

    /**
     * The best {@code k} documents for {@code query}, with snippets of their bodies. Sees every write
     * that returned before it started: writes do not refresh the searcher (a bulk load would make a
     * segment per document), the first search after them does.
     */
    Hits search(Query query, int k) {
        long version = appliedLsn; // read first: the searcher holds at least the writes up to it
        long target = written;
        try {
            if (refreshed < target) {
                searchers.maybeRefreshBlocking(); // includes every write that returned before this call
                synchronized (this) {
                    refreshed = Math.max(refreshed, target);
                }
            }
            IndexSearcher searcher = searchers.acquire();
            try {
                TopDocs top = searcher.search(query, k);
                String[] snippets = highlighter(searcher).highlight(BODY, query, top, 1);
                StoredFields stored = searcher.storedFields();
                List<Hit> hits = new ArrayList<>(top.scoreDocs.length);
                for (int i = 0; i < top.scoreDocs.length; i++) {
                    ScoreDoc scoreDoc = top.scoreDocs[i];
                    Document doc = stored.document(scoreDoc.doc, Set.of(ID, TITLE));
                    String snippet = snippets[i] == null ? "" : snippets[i].replaceAll("\\s+", " ").strip();
                    hits.add(new Hit(doc.get(ID), doc.get(TITLE), scoreDoc.score, snippet));
                }
                return new Hits(hits, version, searcher.getIndexReader().numDocs());
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(owner + ": search failed", e);
        }
    }

    private UnifiedHighlighter highlighter(IndexSearcher searcher) {
        return UnifiedHighlighter.builder(searcher, analyzer)
                .withFormatter(new DefaultPassageFormatter("<b>", "</b>", " \u2026 ", true))
                .withBreakIterator(() -> LengthGoalBreakIterator.createClosestToLength(
                        BreakIterator.getWordInstance(Locale.ROOT), SNIPPET_LENGTH, 0.5f))
                .withMaxNoHighlightPassages(1) // a document matched by its title only: the body's start
                .build();
    }

    /** The applied LSN, {@code ':'}, and the hex SHA-256 of every document (id, title, body) in id order. */
    String digest() {
        synchronized (writeLock) {
            try {
                searchers.maybeRefreshBlocking();
                IndexSearcher searcher = searchers.acquire();
                try {
                    Map<String, String> byId = new TreeMap<>();
                    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
                        LeafReader reader = leaf.reader();
                        Bits live = reader.getLiveDocs();
                        StoredFields stored = reader.storedFields();
                        for (int i = 0; i < reader.maxDoc(); i++) {
                            if (live == null || live.get(i)) {
                                Document doc = stored.document(i);
                                byId.put(doc.get(ID), doc.get(TITLE) + '\0' + doc.get(BODY));
                            }
                        }
                    }
                    MessageDigest sha = MessageDigest.getInstance("SHA-256");
                    byId.forEach((id, rest) -> sha.update((id + '\0' + rest + '\n').getBytes(StandardCharsets.UTF_8)));
                    return appliedLsn + ":" + HexFormat.of().formatHex(sha.digest());
                } finally {
                    searchers.release(searcher);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(owner + ": cannot read the index", e);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required of every JVM", e);
            }
        }
    }

    /** Commits what is pending and closes the index. */
    @Override
    public void close() {
        synchronized (writeLock) {
            try {
                searchers.close();
                commit();
                writer.close();
                directory.close();
            } catch (IOException e) {
                throw new UncheckedIOException(owner + ": cannot close the index", e);
            }
        }
    }
}
