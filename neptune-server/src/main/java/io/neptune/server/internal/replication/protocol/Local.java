package io.neptune.server.internal.replication.protocol;

/**
 * What a leader is told of its own node with an input: the time ({@code nowNanos}, the replica's
 * clock), how far its log is forced ({@code durable}) and how far its service applied the log
 * ({@code applied}).
 */
public record Local(long nowNanos, long durable, long applied) {}
