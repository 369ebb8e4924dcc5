/** The echo and work example services. */
@NullMarked
package io.neptune.examples.echo;

import org.jspecify.annotations.NullMarked;
