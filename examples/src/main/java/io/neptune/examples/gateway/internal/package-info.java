/**
 * The machinery of the HTTP gateway: the Netty pipeline, routing, JSON mapping of the example
 * services' records, sessions and the dashboard's request rate. No compatibility promise.
 *
 * <p>Thread model: Netty event loops decode requests and write responses; routes start
 * asynchronous cluster calls and return at once; completions hop back to the connection's event
 * loop, which writes responses in request order. Demo actions run off the event loops because they
 * block: kills on one single-thread executor, starts (which wait for the node to serve) on another.
 */
@NullMarked
package io.neptune.examples.gateway.internal;

import org.jspecify.annotations.NullMarked;
