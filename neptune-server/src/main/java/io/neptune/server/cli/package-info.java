/**
 * The {@code neptune} command line of the distribution: {@code node --config FILE}, {@code admin}
 * and {@code certs}.
 * {@link io.neptune.server.cli.NeptuneCli} is the main class of {@code bin/neptune}.
 */
@NullMarked
package io.neptune.server.cli;

import org.jspecify.annotations.NullMarked;
