/**
 * TLS for the request port's connections: contexts built from a {@code SecurityConfig}'s PEM files
 * (reloaded when they change) and the peer's identity read off its certificate; and the same files
 * read into JDK key material ({@code PemKeyMaterial}, {@code ReloadingKeyMaterial}) for the JGroups
 * transport and for signing announcements.
 */
@NullMarked
package io.neptune.core.internal.tls;

import org.jspecify.annotations.NullMarked;
