package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.ClientConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A node's main can wait for it: {@code runUntilStopped} and {@code awaitClose} return once it is closed. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class NodeLifecycleIT {
    @Test
    void runUntilStoppedReturnsWhenTheNodeIsClosed() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode node = cluster.add("node-0", ClientConfig.defaults(), b -> b);
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
                try {
                    node.runUntilStopped();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200); // a window in which it must not return: the node still runs
            assertThat(running).isNotDone();
            assertThat(node.isRunning()).isTrue();

            node.close();

            running.get(10, TimeUnit.SECONDS);
            assertThat(node.isRunning()).isFalse();
            node.awaitClose(); // returns at once once closed
        }
    }
}
