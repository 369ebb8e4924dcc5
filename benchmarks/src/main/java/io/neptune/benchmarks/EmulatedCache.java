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
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Write;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.cache.CacheService.CacheEntry;
import io.neptune.examples.cache.CacheService.CacheLookup;
import io.neptune.examples.cache.CacheService.CacheUpdate;
import io.neptune.examples.cache.CacheService.Updated;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * The example {@link CacheService} (real code, real H2 work) on an emulated machine: every request
 * also holds one of the node's workers ({@link ServerCapacity}) for its emulated service time, the
 * real work running inside that time. Level 2, as the example and the dissertation's experiment
 * (§5.4.4).
 *
 * <p>Thread-safety: thread-safe; state lives in H2.
 */
@NeptuneService(name = "bench-cache", partitions = EmulatedDiscussion.PARTITIONS,
        consistency = ConsistencyLevel.LEVEL_2)
public final class EmulatedCache implements ServiceLifecycle {
    /** Share of {@code CacheUpdate} requests (§5.4.4); the rest are {@code CacheLookup}. */
    static final double UPDATES = 0.10;
    /**
     * Emulated service times: a lookup is served from memory (6 ms, about half a discussion read), an
     * update writes to disk (48 ms: a synchronous disk write dominates, 8 lookups' worth).
     */
    static final ServiceTimes TIMES = new ServiceTimes(Duration.ofMillis(6), Duration.ofMillis(48));
    /** Keys per partition. */
    static final int KEYS_PER_PARTITION = 50;
    /** Bytes of a cached value (a generated page fragment). */
    static final int VALUE_BYTES = 2048;

    private final CacheService cache = new CacheService();
    private final ServerCapacity capacity;
    private final ServiceTimes times;

    EmulatedCache(ServerCapacity capacity, ServiceTimes times) {
        this.capacity = requireNonNull(capacity, "capacity");
        this.times = requireNonNull(times, "times");
    }

    @Override
    public void start(ServiceEnvironment environment) {
        cache.start(environment);
    }

    @Override
    public void stop() {
        cache.stop();
    }

    /** {@link CacheService#update}. */
    @Write(name = "CacheUpdate")
    public Updated update(RequestContext context, CacheUpdate request) {
        return capacity.serve(times.write(), () -> cache.update(context, request));
    }

    /** {@link CacheService#lookup}. */
    @Read(name = "CacheLookup")
    public CacheEntry lookup(RequestContext context, CacheLookup request) {
        return capacity.serve(times.read(), () -> cache.lookup(context, request));
    }

    /** {@link CacheService#check}. */
    @Check
    public boolean check(int partition, long lsn) {
        return cache.check(partition, lsn);
    }

    /** {@link CacheService#digest}. */
    @Digest
    public String digest(int partition) {
        return cache.digest(partition);
    }

    /** The service name. */
    static String name() {
        return EmulatedCache.class.getAnnotation(NeptuneService.class).name();
    }

    /**
     * The dissertation's cache workload: 10% {@code CacheUpdate}, 90% {@code CacheLookup}, on a key
     * chosen evenly among {@value #KEYS_PER_PARTITION} of the drawn partition. A key lives in the
     * partition the example routes it to ({@link CacheService#bucketOf}). Nothing is seeded: the
     * warm-up's updates fill the cache, and a miss costs a lookup as much as a hit.
     *
     * <p>Thread-safety: thread-safe.
     */
    static final class Mix implements RequestMix {
        private final List<List<String>> keys = new ArrayList<>();
        private final String value;

        Mix() {
            int partitions = EmulatedDiscussion.PARTITIONS;
            for (int p = 0; p < partitions; p++) {
                keys.add(new ArrayList<>());
            }
            for (int i = 0, full = 0; full < partitions; i++) {
                String key = "/page/" + i;
                List<String> bucket = keys.get(CacheService.bucketOf(key, partitions));
                if (bucket.size() < KEYS_PER_PARTITION) {
                    bucket.add(key);
                    full += bucket.size() == KEYS_PER_PARTITION ? 1 : 0;
                }
            }
            byte[] page = "<p>cached</p>".repeat(VALUE_BYTES / 13 + 1).substring(0, VALUE_BYTES)
                    .getBytes(StandardCharsets.UTF_8);
            value = Base64.getEncoder().encodeToString(page);
        }

        @Override
        public CompletableFuture<String> send(NeptuneClient client, NeptuneHandle user, int partition, Random random,
                CallOptions options) {
            List<String> bucket = keys.get(partition);
            String key = bucket.get(random.nextInt(bucket.size()));
            if (random.nextDouble() < UPDATES) {
                return client.callAsync(user, name(), partition, "CacheUpdate", AccessMode.WRITE,
                        new CacheUpdate(key, value), Updated.class, options).thenApply(r -> NOT_A_NAMED_READ);
            }
            return client.callAsync(user, name(), partition, "CacheLookup", AccessMode.READ, new CacheLookup(key),
                    CacheEntry.class, options).thenApply(r -> NOT_A_NAMED_READ);
        }
    }
}
