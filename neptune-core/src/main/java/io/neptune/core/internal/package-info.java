/**
 * Machinery shared by the client and server modules. Public only so other Neptune packages can
 * use it; it carries no compatibility promise.
 */
@NullMarked
package io.neptune.core.internal;

import org.jspecify.annotations.NullMarked;
