package io.neptune.examples.demo;

import static java.util.Objects.requireNonNull;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.AlreadyAppliedException;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.NoMajorityException;
import io.neptune.core.NoReplicaAvailableException;
import io.neptune.core.NotPrimaryException;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.OverloadedException;
import io.neptune.core.RequestDroppedException;
import io.neptune.core.Partitions;
import io.neptune.examples.auction.AuctionService;
import io.neptune.examples.auction.AuctionService.AddItem;
import io.neptune.examples.auction.AuctionService.BidItem;
import io.neptune.examples.auction.AuctionService.BidResult;
import io.neptune.examples.auction.AuctionService.Item;
import io.neptune.examples.auction.AuctionService.ItemAdded;
import io.neptune.examples.auction.AuctionService.ViewCategory;
import io.neptune.examples.auction.AuctionService.ViewItem;
import io.neptune.examples.auction.ItemId;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.cache.CacheService.CacheEntry;
import io.neptune.examples.cache.CacheService.CacheLookup;
import io.neptune.examples.cache.CacheService.CacheUpdate;
import io.neptune.examples.cache.CacheService.Updated;
import io.neptune.examples.discussion.DiscussionService.AddMsg;
import io.neptune.examples.discussion.DiscussionService.Added;
import io.neptune.examples.discussion.DiscussionService.Headers;
import io.neptune.examples.discussion.DiscussionService.Message;
import io.neptune.examples.discussion.DiscussionService.ViewHeaders;
import io.neptune.examples.discussion.DiscussionService.ViewMsg;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * The demo's closed-loop workload over the three example services, in the dissertation's mixes:
 * discussion with 10% posts, auction with 10% bids and 3% new items (the eBay mix), cache with 10%
 * updates. Every acknowledged write is remembered, and at the end each is looked up again: the
 * {@code lost} count of the RESULT line is how many were not found.
 *
 * <p>Thread-safety: run once from one thread; callers are its own threads, one session each.
 */
final class MixedWorkload {
    static final int PARTITIONS = 64;
    static final List<String> TOPICS = List.of("neptune", "replication", "load-balancing", "jgroups", "netty",
            "recovery", "h2", "benchmarks");
    static final List<String> CATEGORIES = List.of("books", "cameras", "bicycles", "guitars", "keyboards", "lamps");
    private static final CallOptions CALL = CallOptions.timeout(Duration.ofSeconds(10));
    private static final Duration SEED_PATIENCE = Duration.ofMinutes(2);
    private static final Duration READ_PATIENCE = Duration.ofSeconds(60);

    private final NeptuneClient client;
    private final int clients;
    private final PrintStream out;
    private final Recorder recorder = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private final LongAdder errors = new LongAdder();
    private final Map<String, AtomicLong> errorKinds = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> servedBy = new ConcurrentHashMap<>();
    private final List<Session> sessions = new ArrayList<>();
    private final List<String> items = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean running = true;

    /** What one caller wrote and was told succeeded. */
    private static final class Session {
        final NeptuneHandle handle = NeptuneHandle.create();
        final List<String[]> messages = new ArrayList<>(); // topic, id
        final List<String> itemsAdded = new ArrayList<>();
        final Map<String, Long> bids = new TreeMap<>(); // item -> highest accepted amount
        final Map<String, String> cache = new TreeMap<>(); // key -> value
    }

    MixedWorkload(NeptuneClient client, int clients, PrintStream out) {
        this.client = client;
        this.clients = clients;
        this.out = out;
    }

    /**
     * Seeds topics and items so reads have something to find; idempotent across runs in spirit (adds a few).
     * Each write is retried until it is known to have run (see {@link #patiently}): the workload has not
     * started, so a fail-over or an overloaded machine here only makes it slower.
     */
    void seed() {
        Session seeder = new Session();
        for (String topic : TOPICS) {
            patiently(() -> call(seeder, "discussion", Partitions.of(topic, PARTITIONS), "AddMsg", AccessMode.WRITE,
                    new AddMsg(topic, "neptune", "Welcome to " + topic, "Say hello!", null, System.currentTimeMillis()),
                    Added.class), Added.class, SEED_PATIENCE);
        }
        for (String category : CATEGORIES) {
            ItemAdded added = patiently(() -> call(seeder, "auction", Partitions.of(category, PARTITIONS), "AddItem",
                    AccessMode.WRITE, new AddItem(category, "A fine " + category.substring(0, category.length() - 1),
                            "neptune", 100, System.currentTimeMillis()), ItemAdded.class), ItemAdded.class, SEED_PATIENCE);
            if (added != null) {
                items.add(added.id());
            }
        }
    }

    /**
     * Runs {@code call} until it succeeds or {@code patience} has passed: a failure that says the call
     * did not run ({@link NoReplicaAvailableException}, {@link OverloadedException}, a deadline, a lost
     * majority, ...) calls it again; an {@link OutcomeUnknownException} retries the same write with the
     * same request id, so it runs at most once. Returns null when such a retry finds the write applied but
     * its answer no longer kept ({@link AlreadyAppliedException}); rethrows anything else, and the last
     * failure when patience runs out.
     */
    static <T> @Nullable T patiently(Supplier<T> call, Class<T> type, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        Supplier<T> next = call;
        while (true) {
            try {
                return next.get();
            } catch (AlreadyAppliedException e) {
                return null;
            } catch (OutcomeUnknownException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                next = () -> type.cast(unwrap(e.retryAsync()));
            } catch (NoReplicaAvailableException | OverloadedException | DeadlineExceededException
                    | NoMajorityException | NotPrimaryException | RequestDroppedException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                // next stays as it was: an unknown outcome's retry keeps its request id
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while retrying", e);
            }
        }
    }

    private static Object unwrap(CompletableFuture<Object> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw e;
        }
    }

    /** Runs for {@code duration}, calling {@code onSecond} with the elapsed second after each progress line. */
    void run(Duration duration, java.util.function.IntConsumer onSecond) throws InterruptedException {
        List<Thread> callers = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            Session session = new Session();
            sessions.add(session);
            Thread caller = new Thread(() -> callLoop(session), "demo-client-" + i);
            caller.setDaemon(true);
            callers.add(caller);
            caller.start();
        }
        long end = start + duration.toNanos();
        long errorsBefore = 0;
        for (int second = 1; System.nanoTime() < end; second++) {
            long next = start + TimeUnit.SECONDS.toNanos(second);
            TimeUnit.NANOSECONDS.sleep(Math.max(0, Math.min(next, end) - System.nanoTime()));
            Histogram interval = recorder.getIntervalHistogram();
            total.add(interval);
            long errorsNow = errors.sum();
            out.printf(Locale.ROOT, "[%3ds] %,7d req/s  p50=%7.2fms  p99=%8.2fms  errors=%d%n", second,
                    interval.getTotalCount(), interval.getValueAtPercentile(50) / 1000.0,
                    interval.getValueAtPercentile(99) / 1000.0, errorsNow - errorsBefore);
            errorsBefore = errorsNow;
            onSecond.accept(second);
        }
        running = false;
        for (Thread caller : callers) {
            caller.join(TimeUnit.SECONDS.toMillis(30));
        }
        total.add(recorder.getIntervalHistogram());
        elapsedSeconds = (System.nanoTime() - start) / 1e9;
    }

    private double elapsedSeconds;

    private void callLoop(Session session) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long sequence = 0;
        while (running) {
            long begin = System.nanoTime();
            try {
                int service = random.nextInt(3);
                int dice = random.nextInt(100);
                if (service == 0) {
                    discussion(session, dice);
                } else if (service == 1) {
                    auction(session, dice);
                } else {
                    cache(session, dice, sequence++);
                }
                recorder.recordValue(Math.max(1, (System.nanoTime() - begin) / 1000));
            } catch (RuntimeException e) {
                errors.increment();
                String kind = e.getClass().getSimpleName() + ": " + e.getMessage();
                errorKinds.computeIfAbsent(kind.length() > 160 ? kind.substring(0, 160) : kind, k -> new AtomicLong())
                        .incrementAndGet();
            }
        }
    }

    private void discussion(Session session, int dice) {
        String topic = TOPICS.get(ThreadLocalRandom.current().nextInt(TOPICS.size()));
        int partition = Partitions.of(topic, PARTITIONS);
        if (dice < 10) {
            Added added = call(session, "discussion", partition, "AddMsg", AccessMode.WRITE, new AddMsg(topic,
                    Thread.currentThread().getName(), "Re: " + topic, "A post about " + topic, null,
                    System.currentTimeMillis()), Added.class);
            session.messages.add(new String[] {topic, Long.toString(added.id())});
        } else {
            call(session, "discussion", partition, "ViewHeaders", AccessMode.READ, new ViewHeaders(topic), Headers.class);
        }
    }

    private void auction(Session session, int dice) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (dice < 3) {
            String category = CATEGORIES.get(random.nextInt(CATEGORIES.size()));
            ItemAdded added = call(session, "auction", Partitions.of(category, PARTITIONS), "AddItem", AccessMode.WRITE,
                    new AddItem(category, "Item " + random.nextInt(1000), Thread.currentThread().getName(), 100,
                            System.currentTimeMillis()), ItemAdded.class);
            session.itemsAdded.add(added.id());
            items.add(added.id());
        } else if (dice < 13) {
            String item = items.get(random.nextInt(items.size()));
            Item current = call(session, "auction", ItemId.parse(item).partition(), "ViewItem", AccessMode.READ,
                    new ViewItem(item), Item.class);
            long amount = Math.max(current.highestBid(), current.startingPrice()) + 1 + random.nextInt(50);
            BidResult result = call(session, "auction", ItemId.parse(item).partition(), "BidItem", AccessMode.WRITE,
                    new BidItem(item, Thread.currentThread().getName(), amount), BidResult.class);
            if (result.accepted()) {
                session.bids.merge(item, amount, Math::max);
            }
        } else if (dice < 50) {
            String item = items.get(random.nextInt(items.size()));
            call(session, "auction", ItemId.parse(item).partition(), "ViewItem", AccessMode.READ, new ViewItem(item),
                    Item.class);
        } else {
            String category = CATEGORIES.get(random.nextInt(CATEGORIES.size()));
            call(session, "auction", Partitions.of(category, PARTITIONS), "ViewCategory", AccessMode.READ,
                    new ViewCategory(category), AuctionService.Category.class);
        }
    }

    private void cache(Session session, int dice, long sequence) {
        if (dice < 10 || session.cache.isEmpty()) {
            String key = Thread.currentThread().getName() + "-" + sequence;
            String value = Base64.getEncoder().encodeToString(("value " + sequence).getBytes(StandardCharsets.UTF_8));
            call(session, "cache", CacheService.bucketOf(key, PARTITIONS), "CacheUpdate", AccessMode.WRITE,
                    new CacheUpdate(key, value), Updated.class);
            session.cache.put(key, value);
        } else {
            List<String> keys = new ArrayList<>(session.cache.keySet());
            String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
            call(session, "cache", CacheService.bucketOf(key, PARTITIONS), "CacheLookup", AccessMode.READ,
                    new CacheLookup(key), CacheEntry.class);
        }
    }

    private <T> T call(Session session, String service, int partition, String method, AccessMode mode, Object request,
            Class<T> type) {
        return client.call(session.handle, service, partition, method, mode, request, type, CALL);
    }

    /** Looks every acknowledged write up again, through its own session; returns how many were not found. */
    long verify() {
        long lost = 0;
        for (Session session : sessions) {
            for (String[] message : session.messages) {
                Message found = read(() -> call(session, "discussion", Partitions.of(message[0], PARTITIONS), "ViewMsg",
                        AccessMode.READ, new ViewMsg(message[0], Long.parseLong(message[1])), Message.class), Message.class);
                lost += found.found() ? 0 : 1;
            }
            for (String item : session.itemsAdded) {
                Item found = read(() -> call(session, "auction", ItemId.parse(item).partition(), "ViewItem",
                        AccessMode.READ, new ViewItem(item), Item.class), Item.class);
                lost += found.found() ? 0 : 1;
            }
            for (Map.Entry<String, Long> bid : session.bids.entrySet()) {
                Item found = read(() -> call(session, "auction", ItemId.parse(bid.getKey()).partition(), "ViewItem",
                        AccessMode.READ, new ViewItem(bid.getKey()), Item.class), Item.class);
                lost += found.highestBid() >= bid.getValue() ? 0 : 1;
            }
            for (Map.Entry<String, String> entry : session.cache.entrySet()) {
                CacheEntry found = read(() -> call(session, "cache", CacheService.bucketOf(entry.getKey(), PARTITIONS),
                        "CacheLookup", AccessMode.READ, new CacheLookup(entry.getKey()), CacheEntry.class), CacheEntry.class);
                lost += found.found() && entry.getValue().equals(found.value()) ? 0 : 1;
            }
        }
        return lost;
    }

    /** A read of {@link #verify}: retried while it fails for want of a replica (a restarted node still catching up). */
    private static <T> T read(Supplier<T> call, Class<T> type) {
        return requireNonNull(patiently(call, type, READ_PATIENCE), "a read is never already applied");
    }

    /** Acknowledged writes of the run. */
    long acknowledgedWrites() {
        long writes = 0;
        for (Session session : sessions) {
            writes += session.messages.size() + session.itemsAdded.size() + session.bids.size() + session.cache.size();
        }
        return writes;
    }

    /** Prints the error summary and returns the RESULT line (without {@code lost}). */
    String summary(int nodes) {
        if (!errorKinds.isEmpty()) {
            out.println("Errors:");
            errorKinds.entrySet().stream().limit(10)
                    .forEach(e -> out.printf("  %,d x %s%n", e.getValue().get(), e.getKey()));
        }
        long requests = total.getTotalCount();
        return String.format(Locale.ROOT, "RESULT requests=%d errors=%d throughput=%.1f/s p50=%.2fms p99=%.2fms nodes=%d",
                requests, errors.sum(), requests / Math.max(elapsedSeconds, 1e-9),
                total.getValueAtPercentile(50) / 1000.0, total.getValueAtPercentile(99) / 1000.0, nodes);
    }

    Map<String, LongAdder> servedBy() {
        return servedBy;
    }
}
