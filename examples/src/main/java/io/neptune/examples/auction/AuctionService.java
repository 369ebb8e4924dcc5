package io.neptune.examples.auction;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Write;
import io.neptune.examples.discussion.Texts;
import io.neptune.server.storage.PartitionDatabase;
import io.neptune.server.storage.ServiceDatabase;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An auction: categories hash to partitions, items live in their category's partition, and an
 * item id ({@code <partition>-<number>}) says where. Level 3 with a 1 s staleness bound: bids are
 * serialized at the primary, so two concurrent bids on one item never both win, and a session
 * never sees an item's highest bid go down.
 *
 * <p>Thread-safety: thread-safe; state lives in H2.
 */
@NeptuneService(name = "auction", partitions = 64, consistency = ConsistencyLevel.LEVEL_3, stalenessMillis = 1000)
public final class AuctionService implements ServiceLifecycle {
    /**
     * {@code AddItem}: offers an item in a category.
     *
     * @param category the category
     * @param title the item's title
     * @param seller who sells it
     * @param startingPrice the lowest acceptable first bid, in cents, {@code >= 0}
     * @param createdAt creation time in ms since the epoch, chosen by the caller
     */
    public record AddItem(String category, String title, String seller, long startingPrice, long createdAt) {
        /** Validates the fields. */
        public AddItem {
            Texts.name("category", category);
            Texts.name("title", title);
            Texts.name("seller", seller);
            if (startingPrice < 0) {
                throw new IllegalArgumentException("startingPrice: " + startingPrice + " (expected: >= 0)");
            }
        }
    }

    /**
     * The new item.
     *
     * @param id its id
     * @param version the partition version after the write
     */
    public record ItemAdded(String id, long version) {}

    /**
     * {@code BidItem}: bids on an item.
     *
     * @param itemId the item
     * @param bidder who bids
     * @param amount the bid in cents; must exceed the highest bid (or reach the starting price if none)
     */
    public record BidItem(String itemId, String bidder, long amount) {
        /** Validates the fields. */
        public BidItem {
            ItemId.parse(itemId);
            Texts.name("bidder", bidder);
            if (amount <= 0) {
                throw new IllegalArgumentException("amount: " + amount + " (expected: > 0)");
            }
        }
    }

    /**
     * The outcome of a bid.
     *
     * @param accepted whether the bid is now the highest
     * @param found whether the item exists
     * @param highestBid the item's highest bid after this request
     * @param version the partition version after the request
     * @param error why the bid was refused; empty when accepted
     */
    public record BidResult(boolean accepted, boolean found, long highestBid, long version, String error) {}

    /**
     * {@code ViewItem}: one item.
     *
     * @param itemId the item
     */
    public record ViewItem(String itemId) {
        /** Validates the id. */
        public ViewItem {
            ItemId.parse(itemId);
        }
    }

    /**
     * An item.
     *
     * @param found whether it exists
     * @param id its id
     * @param category its category
     * @param title its title
     * @param seller who sells it
     * @param startingPrice the starting price in cents
     * @param highestBid the highest bid in cents (0 if none)
     * @param highestBidder who bid it (empty if none)
     * @param bidCount accepted bids so far
     * @param version the partition version it was read at
     */
    public record Item(boolean found, String id, String category, String title, String seller, long startingPrice,
            long highestBid, String highestBidder, int bidCount, long version) {}

    /**
     * {@code ViewCategory}: the items of a category.
     *
     * @param category the category
     */
    public record ViewCategory(String category) {
        /** Validates the category. */
        public ViewCategory {
            Texts.name("category", category);
        }
    }

    /**
     * The items of a category, newest first.
     *
     * @param category the category
     * @param items its items
     * @param version the partition version they were read at
     */
    public record Category(String category, List<Item> items, long version) {}

    /** {@code ViewCategories}: the categories of one partition (the gateway aggregates all partitions). */
    public record ViewCategories() {}

    /**
     * A category and how many items it holds.
     *
     * @param name category name
     * @param itemCount items in it
     */
    public record CategoryCount(String name, int itemCount) {}

    /**
     * The categories of one partition.
     *
     * @param categories name and item count of each
     */
    public record Categories(List<CategoryCount> categories) {}

    private final ServiceDatabase database = new ServiceDatabase("auction");

    @Override
    public void start(ServiceEnvironment environment) {
        database.open(environment.dataDirectory(),
                "CREATE TABLE IF NOT EXISTS item(partition_id INT NOT NULL, number BIGINT NOT NULL,"
                        + " category VARCHAR(200) NOT NULL, title VARCHAR(200) NOT NULL, seller VARCHAR(200) NOT NULL,"
                        + " starting_price BIGINT NOT NULL, highest_bid BIGINT NOT NULL, highest_bidder VARCHAR(200)"
                        + " NOT NULL, bid_count INT NOT NULL, created_at BIGINT NOT NULL,"
                        + " PRIMARY KEY(partition_id, number))",
                "CREATE INDEX IF NOT EXISTS item_category ON item(partition_id, category)");
    }

    @Override
    public void stop() {
        database.close();
    }

    private PartitionDatabase db() {
        return database.get();
    }

    /** Offers an item; its number is the write's LSN, so every replica assigns the same id. */
    @Write(name = "AddItem")
    public ItemAdded addItem(RequestContext context, AddItem request) {
        return db().write(context, connection -> {
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO item(partition_id, number,"
                    + " category, title, seller, starting_price, highest_bid, highest_bidder, bid_count, created_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, 0, '', 0, ?)")) {
                insert.setInt(1, context.partition());
                insert.setLong(2, context.lsn());
                insert.setString(3, request.category());
                insert.setString(4, request.title());
                insert.setString(5, request.seller());
                insert.setLong(6, request.startingPrice());
                insert.setLong(7, request.createdAt());
                insert.executeUpdate();
            }
            return new ItemAdded(new ItemId(context.partition(), context.lsn()).toString(), context.lsn());
        });
    }

    /** Bids; accepted only above the current highest bid (and at least the starting price). */
    @Write(name = "BidItem")
    public BidResult bidItem(RequestContext context, BidItem request) {
        ItemId id = ItemId.parse(request.itemId());
        return db().write(context, connection -> {
            Item item = load(connection, context.partition(), id, context.lsn());
            if (!item.found() || id.partition() != context.partition()) {
                return new BidResult(false, false, 0, context.lsn(), "no item " + request.itemId());
            }
            Optional<String> refusal = bidRefusal(item, request.amount());
            if (refusal.isPresent()) {
                return new BidResult(false, true, item.highestBid(), context.lsn(), refusal.get());
            }
            try (PreparedStatement update = connection.prepareStatement("UPDATE item SET highest_bid = ?,"
                    + " highest_bidder = ?, bid_count = bid_count + 1 WHERE partition_id = ? AND number = ?")) {
                update.setLong(1, request.amount());
                update.setString(2, request.bidder());
                update.setInt(3, context.partition());
                update.setLong(4, id.number());
                update.executeUpdate();
            }
            return new BidResult(true, true, request.amount(), context.lsn(), "");
        });
    }

    /** One item. */
    @Read(name = "ViewItem")
    public Item viewItem(RequestContext context, ViewItem request) {
        long version = db().appliedLsn(context.partition());
        return db().read(connection -> load(connection, context.partition(), ItemId.parse(request.itemId()), version));
    }

    /** The items of a category, newest first. */
    @Read(name = "ViewCategory")
    public Category viewCategory(RequestContext context, ViewCategory request) {
        long version = db().appliedLsn(context.partition());
        List<Item> items = db().read(connection -> {
            List<Item> rows = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(SELECT_ITEM
                    + " WHERE partition_id = ? AND category = ? ORDER BY number DESC")) {
                select.setInt(1, context.partition());
                select.setString(2, request.category());
                try (ResultSet r = select.executeQuery()) {
                    while (r.next()) {
                        rows.add(item(r, context.partition(), version));
                    }
                }
            }
            return rows;
        });
        return new Category(request.category(), items, version);
    }

    /** The categories of this partition with their item counts. */
    @Read(name = "ViewCategories")
    public Categories viewCategories(RequestContext context, ViewCategories request) {
        return db().read(connection -> {
            List<CategoryCount> counts = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT category, COUNT(*) FROM item"
                    + " WHERE partition_id = ? GROUP BY category ORDER BY category")) {
                select.setInt(1, context.partition());
                try (ResultSet r = select.executeQuery()) {
                    while (r.next()) {
                        counts.add(new CategoryCount(r.getString(1), r.getInt(2)));
                    }
                }
            }
            return new Categories(counts);
        });
    }

    private static final String SELECT_ITEM = "SELECT number, category, title, seller, starting_price, highest_bid,"
            + " highest_bidder, bid_count FROM item";

    /**
     * Why a bid of {@code amount} on {@code item} would be refused, or empty if it would win: the
     * first bid must reach the starting price, a later one must exceed the highest bid. The
     * gateway asks this of a read before it writes, and the write asks it again (for races).
     */
    public static Optional<String> bidRefusal(Item item, long amount) {
        if (item.bidCount() == 0) {
            return amount >= item.startingPrice() ? Optional.empty() : Optional.of("amount: " + amount
                    + " (expected: at least the starting price " + item.startingPrice() + ")");
        }
        return amount > item.highestBid() ? Optional.empty() : Optional.of("amount: " + amount + " (expected: > "
                + item.highestBid() + ", the current highest bid)");
    }

    private static Item load(java.sql.Connection connection, int partition, ItemId id, long version)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(SELECT_ITEM
                + " WHERE partition_id = ? AND number = ?")) {
            select.setInt(1, id.partition());
            select.setLong(2, id.number());
            try (ResultSet r = select.executeQuery()) {
                return r.next() ? item(r, partition, version)
                        : new Item(false, id.toString(), "", "", "", 0, 0, "", 0, version);
            }
        }
    }

    private static Item item(ResultSet r, int partition, long version) throws SQLException {
        return new Item(true, new ItemId(partition, r.getLong(1)).toString(), r.getString(2), r.getString(3),
                r.getString(4), r.getLong(5), r.getLong(6), r.getString(7), r.getInt(8), version);
    }

    /** CHECK: whether the write with {@code lsn} was applied on {@code partition}. */
    @Check
    public boolean check(int partition, long lsn) {
        return db().isApplied(partition, lsn);
    }

    /** A hash of the partition's items and bids. */
    @Digest
    public String digest(int partition) {
        return db().digest(partition, "SELECT number, category, title, seller, starting_price, highest_bid,"
                + " highest_bidder, bid_count, created_at FROM item WHERE partition_id = ? ORDER BY number");
    }
}
