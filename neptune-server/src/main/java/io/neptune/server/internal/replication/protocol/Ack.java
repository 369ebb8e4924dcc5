package io.neptune.server.internal.replication.protocol;

/**
 * A follower's answer to a {@code replicate} (or a snapshot to install): how far its log reaches,
 * or why it refused ({@code gap}, {@code mismatch}, {@code diverged}, ...), and its epoch. A peer
 * message (docs/protocols/replication.md) that the leaders' decisions read, so it lives here.
 */
public record Ack(boolean accepted, long lastLsn, long epoch, String reason) {}
