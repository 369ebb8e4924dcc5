/**
 * The wire protocol (DESIGN §8, {@code docs/protocols/wire.md}): length-prefixed TCP frames with a
 * small binary header carrying Jackson-encoded payloads, and the UDP load-poll datagrams. Internal.
 */
@NullMarked
package io.neptune.core.internal.wire;

import org.jspecify.annotations.NullMarked;
