/**
 * A Neptune node: hosts service partitions and calls any service in the cluster.
 *
 * <p>Starting points: {@link io.neptune.server.NeptuneNode}, {@link io.neptune.server.NodeConfig},
 * {@link io.neptune.server.HostingConfig}.
 */
@NullMarked
package io.neptune.server;

import org.jspecify.annotations.NullMarked;
