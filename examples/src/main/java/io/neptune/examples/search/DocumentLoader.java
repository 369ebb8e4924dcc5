package io.neptune.examples.search;

import static java.util.Objects.requireNonNull;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.examples.search.SearchService.Indexed;
import io.neptune.examples.search.SearchService.PutDocument;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Indexes documents through the cluster: one {@code PutDocument} write per document, sent to the
 * document's partition, a bounded number in flight. Also picks the corpus: the system's man pages,
 * or seeded synthetic documents where there are none.
 *
 * <p>Thread-safety: stateless; {@link #load} blocks its caller until every write has ended.
 */
public final class DocumentLoader {
    /** Default for the {@code inFlight} of {@link #load}. */
    public static final int DEFAULT_IN_FLIGHT = 16;
    /** The seed of the synthetic fallback corpus. */
    public static final long FALLBACK_SEED = 2002;

    private static final Logger logger = LoggerFactory.getLogger(DocumentLoader.class);

    /**
     * What a {@link #load} did.
     *
     * @param indexed documents acknowledged
     * @param failed documents whose write failed
     * @param firstFailure the first failure's message; empty if none failed
     * @param notSent documents not written because the load was interrupted
     */
    public record Result(long indexed, long failed, String firstFailure, long notSent) {}

    /**
     * A corpus to index.
     *
     * @param description what it is, for people (e.g. "1,234 man pages from /usr/share/man/man1")
     * @param documents the documents
     */
    public record Corpus(String description, List<PutDocument> documents) {
        /** Copies the list. */
        public Corpus {
            requireNonNull(description, "description");
            documents = List.copyOf(documents);
        }
    }

    private DocumentLoader() {}

    /**
     * Up to {@code limit} man pages of {@code directory} ({@link ManPages#read}); if there are none
     * (the directory is missing or empty, as on a system installed without documentation),
     * {@code limit} synthetic documents of seed {@value #FALLBACK_SEED} instead, which it logs.
     */
    public static Corpus manPagesOrSynthetic(Path directory, int limit) {
        List<PutDocument> pages = ManPages.read(directory, limit);
        if (!pages.isEmpty()) {
            return new Corpus(String.format("%,d man pages from %s", pages.size(), directory), pages);
        }
        logger.warn("search: no man pages in {}; indexing {} synthetic documents (seed {}) instead", directory, limit,
                FALLBACK_SEED);
        return new Corpus(String.format("%,d synthetic documents (seed %d; no man pages in %s)", limit, FALLBACK_SEED,
                directory), SyntheticCorpus.generate(FALLBACK_SEED, limit));
    }

    /**
     * Writes every document, at most {@code inFlight} at a time, and waits for all of them. Interrupted,
     * it sends no more, waits for the writes in flight (each ends by the timeout of {@code options}),
     * and returns with the thread's interrupt status set and the rest counted as not sent: stop it that
     * way before closing {@code client}, whose close would fail every write still to come.
     */
    public static Result load(NeptuneClient client, List<PutDocument> documents, int inFlight, CallOptions options) {
        if (inFlight < 1) {
            throw new IllegalArgumentException("inFlight: " + inFlight + " (expected: >= 1)");
        }
        NeptuneHandle handle = NeptuneHandle.create();
        Semaphore permits = new Semaphore(inFlight);
        AtomicLong indexed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<String> firstFailure = new AtomicReference<>("");
        long sent = 0;
        boolean interrupted = false;
        for (PutDocument document : documents) {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                interrupted = true;
                break;
            }
            sent++;
            client.callAsync(handle, SearchService.NAME, document.partition(), "PutDocument", AccessMode.WRITE,
                    document, Indexed.class, options).whenComplete((ok, failure) -> {
                        if (failure == null) {
                            indexed.incrementAndGet();
                        } else {
                            failed.incrementAndGet();
                            firstFailure.compareAndSet("", document.id() + ": " + failure);
                        }
                        permits.release();
                    });
        }
        permits.acquireUninterruptibly(inFlight);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return new Result(indexed.get(), failed.get(), requireNonNull(firstFailure.get(), "firstFailure: starts empty"),
                documents.size() - sent);
    }
}
