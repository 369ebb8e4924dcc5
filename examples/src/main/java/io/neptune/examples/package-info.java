/**
 * Example services and the {@code neptune} command-line launcher.
 *
 * <p>Starting points: {@link io.neptune.examples.echo.EchoService}, {@link io.neptune.examples.cli.Main}.
 */
@NullMarked
package io.neptune.examples;

import org.jspecify.annotations.NullMarked;
