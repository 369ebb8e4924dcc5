/** The `neptune` command line: node, demo. */
@NullMarked
package io.neptune.examples.cli;

import org.jspecify.annotations.NullMarked;
