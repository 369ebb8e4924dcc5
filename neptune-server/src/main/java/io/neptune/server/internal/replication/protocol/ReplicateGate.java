package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import org.jspecify.annotations.Nullable;

/**
 * Whether a replica takes a {@code replicate} at all, before it looks at the records: the epoch rule
 * both primary-secondary modes share ({@code docs/protocols/replication.md}). A message of an older
 * epoch is refused; one of a newer epoch is taken after the replica adopts that epoch (a primary of
 * an older one steps down first); within one epoch a replica follows one primary only, and a primary
 * never takes another's records, since two primaries of one epoch must never mix their logs.
 * No state, no I/O.
 */
public final class ReplicateGate {
    private static final String LEADS = "primary at epoch ";
    private static final String FOLLOWS = "following ";

    private ReplicateGate() {}

    /** What to do with a {@code replicate}. */
    public sealed interface Verdict permits Refuse, Adopt, Take {}

    /**
     * Refuse it, answering at the replica's own epoch with {@code reason}; {@code twoPrimaries} when
     * it comes from a second primary of this replica's epoch, a fault worth an operator's attention.
     */
    public record Refuse(String reason, boolean twoPrimaries) implements Verdict {}

    /** It names a newer epoch: adopt that epoch (stepping down if leading), then take the message. */
    public record Adopt(long epoch) implements Verdict {}

    /** It comes from the primary this replica follows at its epoch (or the first one it hears of). */
    public record Take() implements Verdict {}

    /**
     * The verdict on a {@code replicate} of {@code messageEpoch} from {@code from}, at a replica of
     * {@code epoch} that {@code leads} it or follows {@code following} (null: heard of no primary yet).
     */
    public static Verdict check(long messageEpoch, NodeId from, long epoch, boolean leads,
            @Nullable NodeId following) {
        if (messageEpoch < epoch) {
            return new Refuse("stale epoch " + messageEpoch + " < " + epoch, false);
        }
        if (messageEpoch > epoch) {
            return new Adopt(messageEpoch);
        }
        if (leads) {
            return new Refuse(LEADS + epoch, true);
        }
        if (following != null && !following.equals(from)) {
            return new Refuse(FOLLOWS + following + " at epoch " + epoch, true);
        }
        return new Take();
    }

    /**
     * Whether {@code reason}, a refusal this gate gave, says that the refusing replica leads or follows a
     * second primary of the same epoch ({@link Refuse#twoPrimaries}).
     */
    public static boolean secondPrimary(String reason) {
        return reason.startsWith(LEADS) || reason.startsWith(FOLLOWS);
    }
}
