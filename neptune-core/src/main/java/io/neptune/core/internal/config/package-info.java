/**
 * Reading config files into the config records' builders, with keys that environment variables and
 * system properties may also give, {@code ${...}} references expanded, and errors that name the key
 * and the source of its value. Internal.
 */
@NullMarked
package io.neptune.core.internal.config;

import org.jspecify.annotations.NullMarked;
