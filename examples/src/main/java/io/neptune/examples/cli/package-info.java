/** The source tree's `./neptune` command line: the distribution's node and admin, plus gateway and demo. */
@NullMarked
package io.neptune.examples.cli;

import org.jspecify.annotations.NullMarked;
