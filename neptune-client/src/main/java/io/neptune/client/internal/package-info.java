/**
 * The client module's machinery: connection pool, load poller, replica selectors, proxies.
 * Public only so the server module can embed a client; no compatibility promise.
 */
@NullMarked
package io.neptune.client.internal;

import org.jspecify.annotations.NullMarked;
