package io.neptune.server.internal.replication.protocol;

import org.jspecify.annotations.Nullable;

/**
 * A fail-stop secondary's watch over the primary it follows ({@code docs/protocols/replication.md},
 * "Recovery"): whether that primary still counts it in sync. A primary that excludes a
 * secondary sends it a {@code demote}, but that message can be lost or come too early; the
 * secondary sees it from the yellow page instead, and leaves service to recover through a join when
 * <ul>
 *   <li>the primary is announced at a newer epoch than the secondary's for longer than the silence
 *       bound: it leads that epoch without this replica (its first {@code replicate}, which brings
 *       the epoch, would have come by then; before that the announcement merely came first, and
 *       stepping down at once would turn every fail-over into a round of joins), or</li>
 *   <li>the primary is ahead (in its log or its commit point) yet sent nothing for longer than the
 *       silence bound.</li>
 * </ul>
 * No I/O and no clock of its own: times are given.
 */
public final class PrimaryWatch {
    private final long silenceNanos;
    private long lastHeardNanos;
    /** When this secondary first saw its primary announced at a newer epoch than its own, or 0. */
    private long newerPrimarySinceNanos;

    /** Watches with {@code silenceNanos} as the bound (twice the ack timeout), starting as if heard at {@code nowNanos}. */
    public PrimaryWatch(long silenceNanos, long nowNanos) {
        this.silenceNanos = silenceNanos;
        this.lastHeardNanos = nowNanos;
    }

    /** The primary as this replica's yellow page announces it. */
    public record Announced(String node, long epoch, long logEnd, long version) {}

    /** This replica: whether it is a secondary, its epoch, its log end and what it applied. */
    public record Own(boolean secondary, long epoch, long lastLsn, long applied) {}

    /** The primary's records (or a join) reached this replica at {@code nowNanos}. */
    public void heard(long nowNanos) {
        lastHeardNanos = nowNanos;
    }

    /** Whether its primary is announced at a newer epoch and its first {@code replicate} is awaited. */
    public boolean awaitingNewerPrimary() {
        return newerPrimarySinceNanos != 0;
    }

    /** Why this replica should leave service and join again, as of {@code nowNanos}, or null if it follows on. */
    public @Nullable String check(long nowNanos, Announced primary, Own self) {
        if (self.secondary() && primary.epoch() > self.epoch()) {
            if (newerPrimarySinceNanos == 0) {
                newerPrimarySinceNanos = nowNanos;
            } else if (nowNanos - newerPrimarySinceNanos > silenceNanos) {
                newerPrimarySinceNanos = 0;
                return primary.node() + " leads epoch " + primary.epoch() + " without this replica";
            }
            return null;
        }
        newerPrimarySinceNanos = 0;
        boolean ahead = primary.logEnd() > self.lastLsn() || primary.version() > self.applied();
        if (self.secondary() && ahead && nowNanos - lastHeardNanos > silenceNanos) {
            return primary.node() + " is at " + primary.logEnd() + " (applied " + primary.version()
                    + ") but sent nothing for " + silenceNanos / 1_000_000 + " ms";
        }
        return null;
    }
}
