package io.neptune.examples.gateway.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.client.Aggregate;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneException;
import io.neptune.core.Partitions;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.json.Json;
import io.neptune.examples.auction.AuctionService;
import io.neptune.examples.auction.AuctionService.AddItem;
import io.neptune.examples.auction.AuctionService.BidItem;
import io.neptune.examples.auction.AuctionService.BidResult;
import io.neptune.examples.auction.AuctionService.Categories;
import io.neptune.examples.auction.AuctionService.Category;
import io.neptune.examples.auction.AuctionService.CategoryCount;
import io.neptune.examples.auction.AuctionService.Item;
import io.neptune.examples.auction.AuctionService.ItemAdded;
import io.neptune.examples.auction.AuctionService.ViewCategories;
import io.neptune.examples.auction.AuctionService.ViewCategory;
import io.neptune.examples.auction.AuctionService.ViewItem;
import io.neptune.examples.auction.ItemId;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * The auction's routes: categories (aggregated over every partition), a category's items, one
 * item, offering an item and bidding. A category's partition is {@link Partitions#of(Object, int)}
 * of its name; an item id names its partition.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class AuctionRoutes {
    /** The service name. */
    public static final String SERVICE = "auction";
    private static final int PARTITIONS = ServiceDescriptor.of(AuctionService.class).partitions();
    private static final List<Integer> ALL_PARTITIONS = IntStream.range(0, PARTITIONS).boxed().toList();

    private final NeptuneClient client;
    private final CallOptions options;

    /** Creates the routes calling through {@code client} with {@code options}. */
    public AuctionRoutes(NeptuneClient client, CallOptions options) {
        this.client = client;
        this.options = options;
    }

    /** Adds the routes to {@code router}. */
    public void register(Router router) {
        router.add("GET", "/api/auction/categories", this::categories)
                .add("GET", "/api/auction/categories/{category}/items", this::category)
                .add("POST", "/api/auction/categories/{category}/items", this::addItem)
                .add("GET", "/api/auction/items/{itemId}", this::item)
                .add("POST", "/api/auction/items/{itemId}/bids", this::bid);
    }

    private CompletableFuture<GatewayResponse> categories(GatewayRequest request, List<String> parameters) {
        return client.aggregateAsync(request.session(), SERVICE, ALL_PARTITIONS, "ViewCategories",
                new ViewCategories(), Categories.class, request.options(options))
                .thenApply(AuctionRoutes::categoriesJson);
    }

    private static GatewayResponse categoriesJson(Aggregate<Categories> aggregate) {
        if (aggregate.results().isEmpty() && !aggregate.failures().isEmpty()) {
            NeptuneException first = aggregate.failures().values().iterator().next();
            throw first instanceof io.neptune.core.DeadlineExceededException ? first
                    : new HttpStatusException(503, "no partition of " + SERVICE + " answered: " + first.getMessage());
        }
        Map<String, Integer> counts = new TreeMap<>();
        for (Categories categories : aggregate.results().values()) {
            for (CategoryCount count : categories.categories()) {
                counts.merge(count.name(), count.itemCount(), Integer::sum);
            }
        }
        ObjectNode json = Json.mapper().createObjectNode();
        ArrayNode list = json.putArray("categories");
        counts.forEach((name, count) -> list.addObject().put("name", name).put("itemCount", count));
        ArrayNode failed = json.putArray("failedPartitions");
        aggregate.failures().keySet().forEach(failed::add);
        return GatewayResponse.json(200, json);
    }

    private CompletableFuture<GatewayResponse> category(GatewayRequest request, List<String> parameters) {
        ViewCategory view = new ViewCategory(parameters.get(0));
        return client.callAsync(request.session(), SERVICE, Partitions.of(view.category(), PARTITIONS),
                "ViewCategory", AccessMode.READ, view, Category.class, request.options(options)).thenApply(category -> {
                    ObjectNode json = Json.mapper().createObjectNode().put("category", category.category());
                    ArrayNode items = json.putArray("items");
                    category.items().forEach(item -> items.add(itemJson(item)));
                    return GatewayResponse.json(200, json);
                });
    }

    private CompletableFuture<GatewayResponse> item(GatewayRequest request, List<String> parameters) {
        ItemId id = ItemId.parse(parameters.get(0));
        if (id.partition() >= PARTITIONS) {
            throw HttpStatusException.notFound("no item " + id);
        }
        return client.callAsync(request.session(), SERVICE, id.partition(), "ViewItem", AccessMode.READ,
                new ViewItem(id.toString()), Item.class, request.options(options)).thenApply(item -> {
                    if (!item.found()) {
                        throw HttpStatusException.notFound("no item " + id);
                    }
                    return GatewayResponse.json(200, itemJson(item));
                });
    }

    private CompletableFuture<GatewayResponse> addItem(GatewayRequest request, List<String> parameters) {
        JsonBody body = JsonBody.parse(request.body());
        AddItem add = new AddItem(parameters.get(0), body.text("title"), body.text("seller"),
                body.integer("startingPrice"), System.currentTimeMillis());
        return client.callAsync(request.session(), SERVICE, Partitions.of(add.category(), PARTITIONS), "AddItem",
                AccessMode.WRITE, add, ItemAdded.class, request.options(options))
                .thenApply(added -> GatewayResponse.json(201,
                        Json.mapper().createObjectNode().put("id", added.id()).put("version", added.version())));
    }

    /**
     * Bids in two steps: a read refuses the common losers (unknown item, amount too low) without a
     * write, so they take no LSN and leave the partition's version alone; the write checks again,
     * as a concurrent bid may have won in between. A replica's view is never ahead of the primary,
     * so what the read refuses the write would refuse too: the highest bid only rises, and an item
     * absent at a version at or past its number (the LSN that created it) does not exist.
     */
    private CompletableFuture<GatewayResponse> bid(GatewayRequest request, List<String> parameters) {
        ItemId id = ItemId.parse(parameters.get(0));
        JsonBody body = JsonBody.parse(request.body());
        BidItem bid = new BidItem(id.toString(), body.text("bidder"), body.integer("amount"));
        if (id.partition() >= PARTITIONS) {
            throw unknownItem(id);
        }
        // A retry of a bid that won would be refused by the read (its own bid is now the highest):
        // with an idempotency key the write alone decides, and answers a retry as the first time.
        CompletableFuture<Void> checked = request.idempotent() ? CompletableFuture.completedFuture(null)
                : client.callAsync(request.session(), SERVICE, id.partition(), "ViewItem", AccessMode.READ,
                        new ViewItem(id.toString()), Item.class, request.options(options))
                        .thenAccept(item -> refuseEarly(id, bid, item));
        return checked.thenCompose(ignored -> client.callAsync(request.session(), SERVICE, id.partition(), "BidItem",
                AccessMode.WRITE, bid, BidResult.class, request.options(options))).thenApply(result -> {
                    if (!result.found()) {
                        throw unknownItem(id);
                    }
                    if (!result.accepted()) {
                        throw new HttpStatusException(409, result.error());
                    }
                    return GatewayResponse.json(201, Json.mapper().createObjectNode()
                            .put("highestBid", result.highestBid()).put("version", result.version()));
                });
    }

    /** Refuses, before any write, a bid the read shows would lose or an item that does not exist. */
    private static void refuseEarly(ItemId id, BidItem bid, Item item) {
        if (!item.found() && item.version() >= id.number()) {
            throw unknownItem(id);
        }
        if (item.found()) {
            AuctionService.bidRefusal(item, bid.amount()).ifPresent(refusal -> {
                throw new HttpStatusException(409, refusal);
            });
        }
    }

    private static HttpStatusException unknownItem(ItemId id) {
        return HttpStatusException.badRequest("itemId: " + id + " (expected: an existing item)");
    }

    private static ObjectNode itemJson(Item item) {
        return Json.mapper().createObjectNode().put("id", item.id()).put("category", item.category())
                .put("title", item.title()).put("seller", item.seller()).put("highestBid", item.highestBid())
                .put("highestBidder", item.highestBidder()).put("bidCount", item.bidCount())
                .put("version", item.version());
    }
}
