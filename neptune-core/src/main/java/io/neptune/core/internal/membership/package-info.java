/**
 * The service yellow page (DESIGN §4): node announcements, the soft-state table built from them,
 * and the JGroups channel that carries them; with {@code security.tls: required}, TLS on its transport
 * and signed announcements ({@code MembershipSecurity}). Internal.
 */
@NullMarked
package io.neptune.core.internal.membership;

import org.jspecify.annotations.NullMarked;
