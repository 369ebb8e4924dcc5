/**
 * Both ends of a stream's items ({@code docs/protocols/wire.md}, "Streams"), shared by client and
 * server: {@link io.neptune.core.internal.stream.InboundPublisher} turns received DATA frames into a
 * {@code Flow.Publisher} whose demand becomes credit, and
 * {@link io.neptune.core.internal.stream.OutboundSubscriber} sends a local publisher's items as DATA
 * frames within the peer's credit and the channel's writability. Internal.
 */
@NullMarked
package io.neptune.core.internal.stream;

import org.jspecify.annotations.NullMarked;
