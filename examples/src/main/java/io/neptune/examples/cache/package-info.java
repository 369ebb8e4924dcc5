/**
 * The persistent cache example (dissertation §5.3): a level-2 replicated key-value cache on H2,
 * keys mapped to buckets (partitions) by MD5.
 *
 * <p>Starting points: {@link io.neptune.examples.cache.CacheService}.
 */
@NullMarked
package io.neptune.examples.cache;

import org.jspecify.annotations.NullMarked;
