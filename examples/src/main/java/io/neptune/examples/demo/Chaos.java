package io.neptune.examples.demo;

import io.neptune.core.NeptuneException;
import io.neptune.server.NodeConfigFile;
import io.neptune.server.cli.LocalCluster;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The demo's {@code --chaos}: one node process killed with SIGKILL a third of the way through the
 * workload and restarted, in the background, at two thirds; before an {@code --exit} demo stops its
 * cluster, the restarted node gets {@link #RESTART_WAIT} to come back.
 *
 * <p>Thread-safety: {@link #onSecond} runs on the workload's reporting thread, {@link #awaitRestart}
 * after the workload; the restart thread is published through a volatile field.
 */
final class Chaos {
    /** How long an {@code --exit} demo waits for the node its chaos restarted before it stops the cluster. */
    static final Duration RESTART_WAIT = Duration.ofSeconds(60);

    private final LocalCluster processes;
    private final String victim;
    private final Supplier<NodeConfigFile> victimConfig;
    private final long seconds;
    private volatile @Nullable Thread restart;

    /** Chaos on {@code victim} of {@code processes} over a workload of {@code seconds}; {@code victimConfig} restarts it. */
    Chaos(LocalCluster processes, String victim, Supplier<NodeConfigFile> victimConfig, long seconds) {
        this.processes = processes;
        this.victim = victim;
        this.victimConfig = victimConfig;
        this.seconds = seconds;
    }

    /** What the demo announces before the workload. */
    String description() {
        return " with chaos (" + victim + " is killed at " + seconds / 3 + "s, restarted at " + 2 * seconds / 3 + "s)";
    }

    /** Kills or restarts the victim when {@code second} of the workload is its moment. */
    void onSecond(long second) {
        if (second == seconds / 3) {
            processes.kill(victim);
            System.out.printf("CHAOS: killed %s with SIGKILL%n", victim);
        } else if (second == 2 * seconds / 3) {
            System.out.printf("CHAOS: restarting %s (it recovers in the background)%n", victim);
            Thread thread = new Thread(this::restart, "neptune-demo-restart");
            thread.setDaemon(true);
            thread.start();
            restart = thread;
        }
    }

    private void restart() {
        long restarted = System.nanoTime();
        try {
            processes.start(victimConfig.get());
            System.out.printf(Locale.ROOT, "CHAOS: %s is back after %.1f s%n", victim,
                    (System.nanoTime() - restarted) / 1e9);
        } catch (NeptuneException e) {
            // the demo stopped the cluster while the node still started (past RESTART_WAIT, or without --exit's wait)
            System.out.printf("CHAOS: %s did not come back: %s%n", victim, e.getMessage());
        }
    }

    /**
     * Gives the restarted node up to {@link #RESTART_WAIT} to come back: a short run restarts it late, and a
     * node that starts under the workload takes longer than the rest of the run to open its replicas and join.
     */
    void awaitRestart() throws InterruptedException {
        Thread thread = restart;
        if (thread == null || !thread.isAlive()) {
            return;
        }
        System.out.printf("CHAOS: waiting up to %d s for %s to come back before the cluster stops%n",
                RESTART_WAIT.toSeconds(), victim);
        thread.join(RESTART_WAIT.toMillis());
    }
}
