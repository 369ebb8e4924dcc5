/**
 * TLS for the request port's connections: contexts built from a {@code SecurityConfig}'s PEM files
 * and the peer's identity read off its certificate; the same files read into JDK key material
 * ({@code PemKeyMaterial}, {@code ReloadingKeyMaterial}) for the JGroups transport and for signing
 * announcements; and {@code ReloadingFiles}, which reads files again when they change (at most once
 * a second), for all of them and the admin port's token.
 */
@NullMarked
package io.neptune.core.internal.tls;

import org.jspecify.annotations.NullMarked;
