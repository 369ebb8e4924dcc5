/**
 * Neptune's public programming model: the annotations a service author puts on a class, the
 * service descriptor built from them, identifiers, access modes, consistency levels and the
 * {@link io.neptune.core.NeptuneException} hierarchy every caller sees.
 *
 * <p>Starting points: {@link io.neptune.core.NeptuneService}, {@link io.neptune.core.Read},
 * {@link io.neptune.core.Write}, {@link io.neptune.core.ServiceDescriptor}.
 */
@NullMarked
package io.neptune.core;

import org.jspecify.annotations.NullMarked;
