package io.neptune.examples.front;

import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneService;
import io.neptune.core.Partitions;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceCalls;
import io.neptune.core.ServiceDescriptor;
import io.neptune.examples.auction.AuctionService;
import io.neptune.examples.auction.AuctionService.Category;
import io.neptune.examples.auction.AuctionService.Item;
import io.neptune.examples.auction.AuctionService.ViewCategory;
import io.neptune.examples.discussion.DiscussionService;
import io.neptune.examples.discussion.DiscussionService.Header;
import io.neptune.examples.discussion.DiscussionService.Headers;
import io.neptune.examples.discussion.DiscussionService.ViewHeaders;
import io.neptune.examples.discussion.Texts;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The front tier of a multi-tier service: {@code Page} serves a page showing a topic's latest posts
 * from the {@link DiscussionService discussion group} and a category's newest items from the
 * {@link AuctionService auction}. It calls both at once through {@link RequestContext#client()}
 * (fan-out), waits for both, and merges their answers into one {@link Page} (aggregation).
 *
 * <p>The inner calls inherit the page's deadline (less a margin), its service class and its trace,
 * so one trace shows the page and both back-end calls. A part that fails or runs out of time is
 * reported as missing in {@link Page#parts()} and the page still answers with the other part:
 * partial results, as a real front end serves them.
 *
 * <p>Level 1 and stateless: every replica answers on its own and there is nothing to replicate.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
@NeptuneService(name = FrontService.NAME, partitions = FrontService.PARTITIONS)
public final class FrontService {
    /** The service name. */
    public static final String NAME = "front";
    /** The number of partitions: any of them serves any page. */
    public static final int PARTITIONS = 4;
    /** How many posts and how many items a page shows at most. */
    public static final int MAX_ENTRIES = 10;
    /** The name of the posts part in {@link Page#parts()}. */
    public static final String POSTS = "discussion";
    /** The name of the items part in {@link Page#parts()}. */
    public static final String ITEMS = "auction";

    private static final int DISCUSSION_PARTITIONS = ServiceDescriptor.of(DiscussionService.class).partitions();
    private static final int AUCTION_PARTITIONS = ServiceDescriptor.of(AuctionService.class).partitions();

    /**
     * {@code Page}: the page of a topic and a category.
     *
     * @param topic the discussion topic whose latest posts it shows
     * @param category the auction category whose newest items it shows
     */
    public record PageRequest(String topic, String category) {
        /** Validates the fields. */
        public PageRequest {
            Texts.name("topic", topic);
            Texts.name("category", category);
        }
    }

    /**
     * How one part of the page went.
     *
     * @param name {@link #POSTS} or {@link #ITEMS}: the service called
     * @param ok whether it answered
     * @param error why it is missing (exception class and message); empty when ok
     * @param millis how long the call took
     */
    public record Part(String name, boolean ok, String error, long millis) {}

    /**
     * A page: what each part answered, and how each part went.
     *
     * @param topic the topic
     * @param posts its latest posts, newest first, at most {@link #MAX_ENTRIES}; empty if that part is missing
     * @param category the category
     * @param items its newest items, at most {@link #MAX_ENTRIES}; empty if that part is missing
     * @param parts the posts part, then the items part
     */
    public record Page(String topic, List<Header> posts, String category, List<Item> items, List<Part> parts) {}

    /** Calls the discussion group and the auction at once and merges what they answered. */
    @Read(name = "Page")
    public Page page(RequestContext context, PageRequest request) {
        ServiceCalls calls = context.client();
        CompletableFuture<Outcome<List<Header>>> posts = part(POSTS, () -> calls.callAsync(POSTS,
                Partitions.of(request.topic(), DISCUSSION_PARTITIONS), "ViewHeaders", AccessMode.READ,
                new ViewHeaders(request.topic()), Headers.class), FrontService::latest);
        CompletableFuture<Outcome<List<Item>>> items = part(ITEMS, () -> calls.callAsync(ITEMS,
                Partitions.of(request.category(), AUCTION_PARTITIONS), "ViewCategory", AccessMode.READ,
                new ViewCategory(request.category()), Category.class), FrontService::newest);
        // neither future fails (part() turns failures into outcomes), and the inner calls end by the
        // inherited deadline, which leaves this read the margin to answer
        CompletableFuture.allOf(posts, items).join();
        Outcome<List<Header>> p = posts.join();
        Outcome<List<Item>> i = items.join();
        return new Page(request.topic(), p.valueOr(List.of()), request.category(), i.valueOr(List.of()),
                List.of(p.part(), i.part()));
    }

    /** The posts, newest first (they come in reply-to order). */
    private static List<Header> latest(Headers headers) {
        return headers.headers().stream().sorted(Comparator.comparingLong(Header::postedAt)
                .thenComparingLong(Header::id).reversed()).limit(MAX_ENTRIES).toList();
    }

    /** The items (they come newest first). */
    private static List<Item> newest(Category category) {
        return category.items().stream().limit(MAX_ENTRIES).toList();
    }

    /**
     * Starts one part's call and turns its answer, or its failure (even one thrown while calling),
     * into an {@link Outcome} that records how long it took.
     */
    private static <R, T> CompletableFuture<Outcome<T>> part(String name, Supplier<CompletableFuture<R>> call,
            Function<R, T> extract) {
        long start = System.nanoTime();
        CompletableFuture<R> answer;
        try {
            answer = call.get();
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.handle((response, failure) -> {
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                return new Outcome<T>(null, new Part(name, false, cause.getClass().getSimpleName() + ": "
                        + cause.getMessage(), millis));
            }
            return new Outcome<>(extract.apply(response), new Part(name, true, "", millis));
        });
    }

    /** One part's value (null when missing) and how it went. */
    private record Outcome<T>(@Nullable T value, Part part) {
        T valueOr(T missing) {
            T v = value;
            return v == null ? missing : v;
        }
    }
}
