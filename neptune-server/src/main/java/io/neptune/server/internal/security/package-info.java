/**
 * Certificates for TLS: a development certificate authority that issues the node, operator and
 * client certificates whose URI subject alternative names carry a {@code io.neptune.core.Principal},
 * written as the PEM files a {@code SecurityConfig} names ({@code ./neptune certs}).
 */
@NullMarked
package io.neptune.server.internal.security;

import org.jspecify.annotations.NullMarked;
