/**
 * The server module's machinery: request server and dispatcher, per-service scheduler and
 * workers, load-index server, availability publisher, config file loader. No compatibility promise.
 */
@NullMarked
package io.neptune.server.internal;

import org.jspecify.annotations.NullMarked;
