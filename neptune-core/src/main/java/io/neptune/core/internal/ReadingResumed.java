package io.neptune.core.internal;

/**
 * The user event a server fires down its pipeline when it reads a channel again after holding back
 * (its answers were not taken, or it answered one request before reading the next): the clock of a
 * request that was partly in starts again, since the wait was the server's, not the peer's
 * ({@link RequestDeadline}, and the request port's frame timeout).
 */
public final class ReadingResumed {
    /** The event. */
    public static final ReadingResumed INSTANCE = new ReadingResumed();

    private ReadingResumed() {}
}
