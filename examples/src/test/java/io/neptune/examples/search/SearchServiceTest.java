package io.neptune.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.core.ServiceEnvironment;
import io.neptune.examples.search.SearchService.Hit;
import io.neptune.examples.search.SearchService.Hits;
import io.neptune.examples.search.SearchService.PutDocument;
import io.neptune.examples.search.SearchService.Search;
import io.neptune.server.FakeRequestContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The search service on its own: indexing, replacing, searching, the top-k merge, snippets, CHECK and restart. */
class SearchServiceTest {
    private static final Set<Integer> ALL = IntStream.range(0, SearchService.PARTITIONS).boxed()
            .collect(Collectors.toCollection(TreeSet::new));

    @TempDir
    Path data;

    private SearchService service;
    private final Map<Integer, Long> lsns = new HashMap<>();

    @BeforeEach
    void start() {
        service = started();
    }

    @AfterEach
    void stop() {
        service.stop();
    }

    private SearchService started() {
        SearchService started = new SearchService();
        started.start(ServiceEnvironment.of(NodeId.of("test-node"), data, ALL));
        return started;
    }

    private long put(String id, String title, String body) {
        PutDocument document = new PutDocument(id, title, body);
        long lsn = lsns.merge(document.partition(), 1L, Long::sum);
        assertThat(service.put(FakeRequestContext.write("search", "PutDocument", document.partition(), lsn), document)
                .version()).isEqualTo(lsn);
        return lsn;
    }

    private Hits searchPartition(int partition, String query, int k) {
        return service.search(FakeRequestContext.read("search", "Search", partition), new Search(query, k));
    }

    /** What the gateway does: ask every partition, merge. */
    private List<Hit> search(String query, int k) {
        List<Hits> partials = new ArrayList<>();
        for (int p : ALL) {
            partials.add(searchPartition(p, query, k));
        }
        return TopHits.merge(partials, k);
    }

    private static List<String> ids(List<Hit> hits) {
        return hits.stream().map(Hit::id).toList();
    }

    @Test
    void findsDocumentsOnEveryPartitionAndMergesTheTopKByScore() {
        for (int i = 0; i < 40; i++) {
            put("doc-" + i, "Document " + i, (i % 4 == 0 ? "replication keeps replicas consistent. " : "")
                    + (i % 8 == 0 ? "replication replication replication of the log. " : "")
                    + "filler text number " + i);
        }
        List<Hit> all = search("replication", 100);
        assertThat(ids(all)).containsExactlyInAnyOrderElementsOf(
                IntStream.range(0, 40).filter(i -> i % 4 == 0).mapToObj(i -> "doc-" + i).toList());
        assertThat(all.stream().map(h -> new PutDocument(h.id(), "t", "").partition()).distinct().count())
                .as("the matches are spread over partitions").isGreaterThan(2);
        assertThat(all).isSortedAccordingTo(TopHits.ORDER);
        // documents that say it four times rank above those that say it once
        assertThat(ids(all.subList(0, 5))).containsExactlyInAnyOrder("doc-0", "doc-8", "doc-16", "doc-24", "doc-32");

        List<Hit> top3 = search("replication", 3);
        assertThat(top3).hasSize(3).isEqualTo(all.subList(0, 3));
        assertThat(top3.get(0).title()).startsWith("Document ");
        assertThat(top3.get(0).score()).isPositive();
        // every word must match
        assertThat(ids(search("replication log", 100))).containsExactlyInAnyOrder("doc-0", "doc-8", "doc-16",
                "doc-24", "doc-32");
        assertThat(search("nothingmatchesthis", 10)).isEmpty();
        assertThat(search("the", 10)).as("only a stop word").isEmpty();
    }

    @Test
    void englishStemmingAndTheTitleCount() {
        put("copy.1", "cp - copy files and directories", "Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.");
        put("ls.1", "ls - list directory contents", "List information about the FILEs.");
        assertThat(ids(search("copying file", 10))).containsExactly("copy.1");
        assertThat(ids(search("directories", 10))).containsExactly("copy.1", "ls.1").hasSize(2);
        assertThat(ids(search("list | copy", 10))).containsExactlyInAnyOrder("copy.1", "ls.1");
        assertThat(ids(search("directory -copy", 10))).containsExactly("ls.1");
        assertThat(ids(search("\"directory contents\"", 10))).containsExactly("ls.1");
        assertThat(ids(search("dir*", 10))).containsExactlyInAnyOrder("copy.1", "ls.1");
    }

    @Test
    void putReplacesTheDocumentWithTheSameId() {
        put("page", "First title", "alpha words");
        String before = service.digest(new PutDocument("page", "t", "").partition());
        put("page", "Second title", "beta words");
        assertThat(search("alpha", 10)).isEmpty();
        List<Hit> hits = search("beta", 10);
        assertThat(ids(hits)).containsExactly("page");
        assertThat(hits.get(0).title()).isEqualTo("Second title");
        assertThat(service.digest(new PutDocument("page", "t", "").partition())).isNotEqualTo(before);
    }

    @Test
    void snippetsHighlightTheMatchAndEscapeTheText() {
        String body = "Some <script>alert('x')</script> markup & text. " + "padding words here. ".repeat(30)
                + "The replication protocol is described here. " + "more padding words. ".repeat(30);
        put("html", "A page", body);
        Hit hit = search("replication", 1).get(0);
        assertThat(hit.snippet()).contains("<b>replication</b>").doesNotContain("padding words here. padding words"
                + " here. padding words here. padding words here. padding words here. padding words here. padding");
        assertThat(hit.snippet().length()).isLessThan(300);
        Hit start = search("alert", 1).get(0);
        assertThat(start.snippet()).contains("&lt;script&gt;").doesNotContain("<script>").contains("<b>alert</b>");
        // a match in the title only: the snippet is the body's beginning
        put("title-only", "Zebra crossing", "Nothing about that animal in here.");
        assertThat(search("zebra", 1).get(0).snippet()).startsWith("Nothing about");
    }

    @Test
    void aWriteMustBelongToItsPartitionAndRunsOncePerLsn() {
        PutDocument document = new PutDocument("misplaced", "Title", "body");
        int wrong = (document.partition() + 1) % SearchService.PARTITIONS;
        assertThatThrownBy(() -> service.put(FakeRequestContext.write("search", "PutDocument", wrong, 1), document))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("belongs to partition "
                        + document.partition());
        long lsn = put("misplaced", "Title", "body");
        assertThat(service.check(document.partition(), lsn)).isTrue();
        assertThat(service.check(document.partition(), lsn + 1)).isFalse();
        assertThatThrownBy(() -> service.put(FakeRequestContext.write("search", "PutDocument", document.partition(),
                lsn), document)).isInstanceOf(IllegalStateException.class).hasMessageContaining("applied LSN");
        assertThat(searchPartition(document.partition(), "body", 5).version()).isEqualTo(lsn);
    }

    @Test
    void aPartitionThatLeavesAndComesBackLiveKeepsItsIndex() {
        long lsn = put("moved", "Moved page", "wandering words");
        int partition = new PutDocument("moved", "t", "").partition();
        service.partitionRemoved(partition);
        assertThatThrownBy(() -> searchPartition(partition, "wandering", 5)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the partitions this node hosts");
        service.partitionAdded(partition);
        assertThat(ids(searchPartition(partition, "wandering", 5).hits())).containsExactly("moved");
        assertThat(service.check(partition, lsn)).isTrue();
    }

    @Test
    void documentsAndTheAppliedLsnSurviveARestart() {
        long lsn = put("kept", "Kept page", "durable words");
        int partition = new PutDocument("kept", "t", "").partition();
        String digest = service.digest(partition);
        service.stop();
        service = started();
        assertThat(ids(search("durable", 10))).containsExactly("kept");
        assertThat(service.check(partition, lsn)).isTrue();
        assertThat(service.check(partition, lsn + 1)).isFalse();
        assertThat(service.digest(partition)).isEqualTo(digest).startsWith(lsn + ":");
        assertThat(service.digest((partition + 1) % SearchService.PARTITIONS)).startsWith("0:");
    }

    @Test
    void requestsAreValidated() {
        assertThatThrownBy(() -> new Search(" ", 10)).hasMessage("query: blank (expected: 1..500 characters, not all"
                + " blank)");
        assertThatThrownBy(() -> new Search("x", 0)).hasMessage("k: 0 (expected: 1..100)");
        assertThatThrownBy(() -> new Search("x", 101)).hasMessage("k: 101 (expected: 1..100)");
        assertThatThrownBy(() -> new PutDocument("id", "title", "x".repeat(SearchService.MAX_BODY_BYTES + 1)))
                .hasMessage("body: 4097 bytes (expected: at most 4096)");
        assertThatThrownBy(() -> new PutDocument("", "title", "")).hasMessageStartingWith("id: blank");
        assertThat(searchPartition(0, "x( \"unclosed", 1).hits()).as("simple query syntax: no errors").isEmpty();
    }

    @Test
    void topHitsBreaksTiesByIdAndCutsAtK() {
        Hits a = new Hits(List.of(new Hit("b", "B", 2f, ""), new Hit("d", "D", 1f, "")), 1, 2);
        Hits b = new Hits(List.of(new Hit("a", "A", 2f, ""), new Hit("c", "C", 3f, "")), 1, 2);
        assertThat(ids(TopHits.merge(List.of(a, b), 3))).containsExactly("c", "a", "b");
        assertThat(ids(TopHits.merge(List.of(a, b), 10))).containsExactly("c", "a", "b", "d");
        assertThat(TopHits.merge(List.of(), 5)).isEmpty();
        assertThatThrownBy(() -> TopHits.merge(List.of(a), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
