/**
 * The HTTP gateway: a Neptune node hosting nothing that serves the example services (discussion
 * group, auction, persistent cache) to people as JSON over HTTP/1.1, a web UI, and a cluster
 * dashboard. Routes and error codes are listed in {@code docs/OPERATIONS.md}.
 *
 * <p>Starting points: {@link io.neptune.examples.gateway.HttpGateway},
 * {@link io.neptune.examples.gateway.DemoControl}.
 */
@NullMarked
package io.neptune.examples.gateway;

import org.jspecify.annotations.NullMarked;
