package io.neptune.benchmarks;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Snapshottable;
import io.neptune.core.Write;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.cache.CacheService.CacheEntry;
import io.neptune.examples.cache.CacheService.CacheLookup;
import io.neptune.examples.cache.CacheService.CacheUpdate;
import io.neptune.examples.cache.CacheService.Updated;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The example persistent cache ({@link CacheService}: H2, {@code @Check}, snapshots) under the same
 * name and methods, replicated at level 1 (write-anywhere) instead of level 2, for
 * {@code ./neptune bench logs --level 1}: every method is the cache's own.
 *
 * <p>Thread-safety: as {@link CacheService}.
 */
@NeptuneService(name = "cache", partitions = 64, consistency = ConsistencyLevel.LEVEL_1)
public final class WriteAnywhereCache implements ServiceLifecycle, Snapshottable {
    private final CacheService cache = new CacheService();

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
        return cache.update(context, request);
    }

    /** {@link CacheService#lookup}. */
    @Read(name = "CacheLookup")
    public CacheEntry lookup(RequestContext context, CacheLookup request) {
        return cache.lookup(context, request);
    }

    /** {@link CacheService#check}. */
    @Check
    public boolean check(int partition, long lsn) {
        return cache.check(partition, lsn);
    }

    @Override
    public long writeSnapshot(int partition, OutputStream out) {
        return cache.writeSnapshot(partition, out);
    }

    @Override
    public void restoreSnapshot(int partition, InputStream in, long lsn) {
        cache.restoreSnapshot(partition, in, lsn);
    }

    @Override
    public void force(int partition) {
        cache.force(partition);
    }

    /** {@link CacheService#digest}. */
    @Digest
    public String digest(int partition) {
        return cache.digest(partition);
    }
}
