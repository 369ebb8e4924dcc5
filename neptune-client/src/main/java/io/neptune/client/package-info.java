/**
 * The client API: call any method of any partition of any service in the cluster, synchronously,
 * asynchronously, through a typed proxy, or aggregated over many partitions.
 *
 * <p>Starting points: {@link io.neptune.client.NeptuneClient}, {@link io.neptune.client.NeptuneHandle},
 * {@link io.neptune.client.ClientConfig}, {@link io.neptune.client.BalancingPolicy}.
 */
@NullMarked
package io.neptune.client;

import org.jspecify.annotations.NullMarked;
