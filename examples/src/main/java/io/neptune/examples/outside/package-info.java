/** An application outside the cluster that calls the example services over the nodes' request ports only. */
@NullMarked
package io.neptune.examples.outside;

import org.jspecify.annotations.NullMarked;
