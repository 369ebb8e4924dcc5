package io.neptune.server;

/**
 * How a node served by {@link NeptuneNode#runUntilStopped()} came to stop, and the exit status the
 * {@code neptune node} command ends with for it (docs/OPERATIONS.md, "Stopping a node").
 */
public enum StopOutcome {
    /** Closed by {@link NeptuneNode#close()} from another thread, or by a drain an operator asked for. */
    CLOSED(0),
    /** A stop signal drained the node within its {@link NodeConfig#drainTimeout()}, then closed it. */
    DRAINED(0),
    /**
     * A stop signal started a drain that had not finished when its {@link NodeConfig#drainTimeout()}
     * ended (a primary no other replica could take, or calls still running); the node closed anyway, and
     * its log names what was left.
     */
    DRAIN_INCOMPLETE(3),
    /** A second stop signal closed the node at once, during its drain. */
    FORCED(4);

    private final int exitCode;

    StopOutcome(int exitCode) {
        this.exitCode = exitCode;
    }

    /** The exit status of a {@code neptune node} process that stopped this way. */
    public int exitCode() {
        return exitCode;
    }
}
