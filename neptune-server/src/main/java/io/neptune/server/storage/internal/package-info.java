/**
 * The H2 side of {@link io.neptune.server.storage}: connection URLs, settings and the connection
 * pool, so no H2 type appears outside this package. No compatibility promise.
 */
@NullMarked
package io.neptune.server.storage.internal;

import org.jspecify.annotations.NullMarked;
