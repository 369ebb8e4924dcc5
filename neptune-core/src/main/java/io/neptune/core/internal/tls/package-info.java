/**
 * TLS for the request port's connections: contexts built from a {@code SecurityConfig}'s PEM files
 * (reloaded when they change) and the peer's identity read off its certificate.
 */
@NullMarked
package io.neptune.core.internal.tls;

import org.jspecify.annotations.NullMarked;
