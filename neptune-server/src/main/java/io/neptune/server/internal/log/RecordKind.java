package io.neptune.server.internal.log;

/**
 * What a {@link LogRecord} holds. Each kind has a one-byte code in the file format that never
 * changes once released; new kinds take new codes.
 */
public enum RecordKind {
    /** A write request to re-execute: the service method and its encoded request. */
    WRITE(1),
    /**
     * A level-1 write whose request id this log already holds at a lower LSN: a retry that reached
     * two replicas before either one's gossip did, so each executed it once. Kept, so its origin's
     * sequence has no hole and peers can pull it, but never executed here.
     */
    REPEAT(2),
    /**
     * A record a new level-2/3 primary in {@code majority} mode logs at the start of its epoch: it
     * carries no write and is never executed. Committing it commits the unapplied tail the primary
     * inherited, which a primary may never count as committed by replica counts alone (an older
     * epoch's record on a majority can still be overwritten, Raft §5.4.2).
     */
    NOOP(3),
    /**
     * A {@code majority}-mode partition's configuration ({@code docs/protocols/placement.md}): the
     * payload is the comma-separated ids of its voting replicas. Logged by the primary, never executed;
     * each replica counts its majority over the latest one in its log.
     */
    CONFIG(4);

    private static final RecordKind[] KINDS = values();

    private final byte code;

    RecordKind(int code) {
        this.code = (byte) code;
    }

    /** Whether replicas execute records of this kind; the others are applied by skipping them. */
    public boolean executes() {
        return this == WRITE;
    }

    /** The kind's code in the file format. */
    byte code() {
        return code;
    }

    /** Returns the kind with {@code code}, or throws if there is none. */
    static RecordKind ofCode(byte code) {
        for (RecordKind kind : KINDS) {
            if (kind.code == code) {
                return kind;
            }
        }
        throw new IllegalArgumentException("record kind: " + code + " (expected: a known kind code)");
    }
}
