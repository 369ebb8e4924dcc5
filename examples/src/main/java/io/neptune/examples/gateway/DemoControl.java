package io.neptune.examples.gateway;

import java.util.List;

/**
 * Lets the gateway's dashboard kill and restart the node processes of a demo cluster. Without it
 * the gateway answers {@code POST /admin/nodes/{id}/kill} and {@code /start} with 404.
 *
 * <p>Thread-safety: implementations must be thread-safe; the gateway calls {@link #kill} and
 * {@link #start} on executors of its own (never an event loop; kills and starts on separate
 * threads, so a slow start does not hold up a kill), so they may block. {@link #start} should
 * bound how long it waits and throw with a clear message when the node does not come up.
 */
public interface DemoControl {
    /** The nodes this control can act on, whether running or not; the dashboard shows absent ones as DOWN. */
    List<String> nodes();

    /** Kills {@code node}'s process with SIGKILL; does nothing if it is not running. */
    void kill(String node);

    /**
     * Restarts {@code node}'s process on its data (it recovers before it serves); does nothing if
     * it runs. A process that ended on its own (a crash) counts as not running.
     */
    void start(String node);

    /** The process id of {@code node}'s live process, or -1 if it is not running (also after a crash). */
    long pid(String node);
}
