/**
 * How process-backed services run their programs: the hosted service instance, command templates,
 * process groups and their kill, CPU accounting from {@code /proc}, and the warm processes' framing.
 * No compatibility promise.
 */
@NullMarked
package io.neptune.server.process.internal;

import org.jspecify.annotations.NullMarked;
