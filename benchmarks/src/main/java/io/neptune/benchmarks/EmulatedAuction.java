package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.EmulatedDiscussion.ServiceTimes;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
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
import io.neptune.examples.auction.AuctionService;
import io.neptune.examples.auction.AuctionService.AddItem;
import io.neptune.examples.auction.AuctionService.BidItem;
import io.neptune.examples.auction.AuctionService.BidResult;
import io.neptune.examples.auction.AuctionService.Category;
import io.neptune.examples.auction.AuctionService.Item;
import io.neptune.examples.auction.AuctionService.ItemAdded;
import io.neptune.examples.auction.AuctionService.ViewCategory;
import io.neptune.examples.auction.AuctionService.ViewItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The example {@link AuctionService} (real code, real H2 work) on an emulated machine: every
 * request also holds one of the node's workers ({@link ServerCapacity}) for its emulated service
 * time, the real work running inside that time. Level 3 with a 1 s staleness bound, as the example
 * and the dissertation's experiment (§5.4.4).
 *
 * <p>Thread-safety: thread-safe; state lives in H2.
 */
@NeptuneService(name = "bench-auction", partitions = EmulatedDiscussion.PARTITIONS,
        consistency = ConsistencyLevel.LEVEL_3, stalenessMillis = 1000)
public final class EmulatedAuction implements ServiceLifecycle {
    /** Share of {@code BidItem} requests, from the dissertation's analysis of eBay's 1999 log. */
    static final double BIDS = 0.10;
    /** Share of {@code AddItem} requests. */
    static final double ADDS = 0.03;
    /** Share of the reads that are {@code ViewCategory} (the rest are {@code ViewItem}). */
    static final double CATEGORY_READS = 0.5;
    /**
     * Emulated service times: reads slower than the discussion group's 13.6 ms {@code ViewHeaders}
     * (authentication and user accounts, §5.4.4), a bid very cheap (one row update), an added item
     * like an {@code AddMsg} (9.3 ms).
     */
    static final Times TIMES = new Times(Duration.ofMillis(20), Duration.ofMillis(14), Duration.ofMillis(3),
            Duration.ofNanos(9_300_000));

    private final AuctionService auction = new AuctionService();
    private final ServerCapacity capacity;
    private final Times times;

    /**
     * How long each request holds a worker, at every replica that runs it.
     *
     * @param viewCategory a {@code ViewCategory}
     * @param viewItem a {@code ViewItem}
     * @param bid a {@code BidItem}
     * @param addItem an {@code AddItem}
     */
    record Times(Duration viewCategory, Duration viewItem, Duration bid, Duration addItem) {
        /** The mean read and mean write of the workload mix, for the capacity model. */
        ServiceTimes means() {
            double read = CATEGORY_READS * viewCategory.toNanos() + (1 - CATEGORY_READS) * viewItem.toNanos();
            double write = (BIDS * bid.toNanos() + ADDS * addItem.toNanos()) / (BIDS + ADDS);
            return new ServiceTimes(Duration.ofNanos(Math.round(read)), Duration.ofNanos(Math.round(write)));
        }
    }

    EmulatedAuction(ServerCapacity capacity, Times times) {
        this.capacity = requireNonNull(capacity, "capacity");
        this.times = requireNonNull(times, "times");
    }

    @Override
    public void start(ServiceEnvironment environment) {
        auction.start(environment);
    }

    @Override
    public void stop() {
        auction.stop();
    }

    /** {@link AuctionService#addItem}. */
    @Write(name = "AddItem")
    public ItemAdded addItem(RequestContext context, AddItem request) {
        return capacity.serve(times.addItem(), () -> auction.addItem(context, request));
    }

    /** {@link AuctionService#bidItem}. */
    @Write(name = "BidItem")
    public BidResult bidItem(RequestContext context, BidItem request) {
        return capacity.serve(times.bid(), () -> auction.bidItem(context, request));
    }

    /** {@link AuctionService#viewItem}. */
    @Read(name = "ViewItem")
    public Item viewItem(RequestContext context, ViewItem request) {
        return capacity.serve(times.viewItem(), () -> auction.viewItem(context, request));
    }

    /** {@link AuctionService#viewCategory}. */
    @Read(name = "ViewCategory")
    public Category viewCategory(RequestContext context, ViewCategory request) {
        return capacity.serve(times.viewCategory(), () -> auction.viewCategory(context, request));
    }

    /** {@link AuctionService#check}. */
    @Check
    public boolean check(int partition, long lsn) {
        return auction.check(partition, lsn);
    }

    /** {@link AuctionService#digest}. */
    @Digest
    public String digest(int partition) {
        return auction.digest(partition);
    }

    /** The service name. */
    static String name() {
        return EmulatedAuction.class.getAnnotation(NeptuneService.class).name();
    }

    /**
     * The dissertation's auction workload: 10% bids, 3% new items, the rest views of a category or
     * of an item, for a category chosen evenly among about {@code 400 × nodes}. A category lives in
     * the partition the gateway routes it to ({@link Partitions#of}); the probe draws the partition
     * evenly and the mix a category of it, and each partition gets the same number of categories,
     * so every category is equally likely. Bids go to items known to exist (seeded, or added during
     * the run), with ever higher amounts, so nearly every bid is accepted and updates its item.
     *
     * <p>Thread-safety: thread-safe.
     */
    static final class Mix implements RequestMix {
        private static final AtomicLong AMOUNTS = new AtomicLong(1_000);

        private final List<List<String>> categories;
        private final List<List<String>> items;

        Mix(int nodes) {
            int partitions = EmulatedDiscussion.PARTITIONS;
            int perPartition = DiscussionMix.perPartition(nodes, partitions);
            categories = new ArrayList<>();
            items = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                categories.add(new ArrayList<>());
                items.add(Collections.synchronizedList(new ArrayList<>()));
            }
            for (int i = 0, full = 0; full < partitions; i++) {
                String category = "category-" + i;
                List<String> bucket = categories.get(Partitions.of(category, partitions));
                if (bucket.size() < perPartition) {
                    bucket.add(category);
                    full += bucket.size() == perPartition ? 1 : 0;
                }
            }
        }

        /** Offers {@code perPartition} items in every partition before the measurement, a partition-wide wave at a time. */
        void seed(NeptuneClient client, int perPartition) {
            NeptuneHandle seller = NeptuneHandle.create();
            Random random = new Random(1);
            for (int wave = 0; wave < perPartition; wave++) {
                List<CompletableFuture<String>> added = new ArrayList<>();
                for (int p = 0; p < items.size(); p++) {
                    added.add(addItem(client, seller, p, random, CallOptions.timeout(Duration.ofSeconds(30))));
                }
                added.forEach(CompletableFuture::join);
            }
        }

        @Override
        public CompletableFuture<String> send(NeptuneClient client, NeptuneHandle user, int partition, Random random,
                CallOptions options) {
            double kind = random.nextDouble();
            String item = anyItem(partition, random);
            if (kind < BIDS && item != null) {
                BidItem bid = new BidItem(item, "bidder-" + random.nextInt(10_000), AMOUNTS.incrementAndGet());
                return client.callAsync(user, name(), partition, "BidItem", AccessMode.WRITE, bid, BidResult.class,
                        options).thenApply(r -> NOT_A_NAMED_READ);
            }
            if (kind < BIDS + ADDS) {
                return addItem(client, user, partition, random, options);
            }
            if (kind < BIDS + ADDS + (1 - BIDS - ADDS) * CATEGORY_READS || item == null) {
                ViewCategory view = new ViewCategory(category(partition, random));
                return client.callAsync(user, name(), partition, "ViewCategory", AccessMode.READ, view,
                        Category.class, options).thenApply(r -> NOT_A_NAMED_READ);
            }
            return client.callAsync(user, name(), partition, "ViewItem", AccessMode.READ, new ViewItem(item),
                    Item.class, options).thenApply(r -> NOT_A_NAMED_READ);
        }

        private CompletableFuture<String> addItem(NeptuneClient client, NeptuneHandle seller, int partition,
                Random random, CallOptions options) {
            String category = category(partition, random);
            AddItem add = new AddItem(category, "item of " + category, "seller-" + random.nextInt(1_000), 100,
                    System.currentTimeMillis());
            return client.callAsync(seller, name(), partition, "AddItem", AccessMode.WRITE, add, ItemAdded.class,
                    options).thenApply(added -> {
                        items.get(partition).add(added.id());
                        return NOT_A_NAMED_READ;
                    });
        }

        private String category(int partition, Random random) {
            List<String> bucket = categories.get(partition);
            return bucket.get(random.nextInt(bucket.size()));
        }

        private @Nullable String anyItem(int partition, Random random) {
            List<String> known = items.get(partition);
            synchronized (known) {
                return known.isEmpty() ? null : known.get(random.nextInt(known.size()));
            }
        }
    }
}
