/** The `neptune` command line: node, gateway, demo, admin. */
@NullMarked
package io.neptune.examples.cli;

import org.jspecify.annotations.NullMarked;
