package io.neptune.examples.gateway;

import java.util.List;

/**
 * Lets the gateway's dashboard kill and restart the node processes of a demo cluster. Without it
 * the gateway answers {@code POST /admin/nodes/{id}/kill} and {@code /start} with 404.
 *
 * <p>Thread-safety: implementations must be thread-safe; the gateway calls {@link #kill} and
 * {@link #start} on its own executor (never an event loop), so they may block.
 */
public interface DemoControl {
    /** The nodes this control can act on, whether running or not; the dashboard shows absent ones as DOWN. */
    List<String> nodes();

    /** Kills {@code node}'s process with SIGKILL; does nothing if it is not running. */
    void kill(String node);

    /** Restarts {@code node}'s process on its data (it recovers before it serves); does nothing if it runs. */
    void start(String node);

    /** The process id of {@code node}, or -1 if it is not running. */
    long pid(String node);
}
