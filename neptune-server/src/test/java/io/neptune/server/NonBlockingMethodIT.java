package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RemoteMethodException;
import io.neptune.core.RequestContext;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code @Read(blocking = false)} between real nodes: the method runs on the serving node's I/O
 * thread (a Netty event loop) instead of a service worker, answers, and fails like any method.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NonBlockingMethodIT {
    /** Says where it ran. */
    @NeptuneService(name = "where", partitions = 1)
    public static final class Where {
        /** The request and the answer. */
        public record Ran(String thread, boolean eventLoop) {}

        /** Any request. */
        public record Ask(boolean fail) {}

        @Read(blocking = false)
        public Ran quick(RequestContext context, Ask ask) {
            if (ask.fail()) {
                throw new IllegalStateException("asked to fail");
            }
            return here();
        }

        @Read
        public Ran usual(RequestContext context, Ask ask) {
            return here();
        }

        private static Ran here() {
            Thread thread = Thread.currentThread();
            return new Ran(thread.getName(), thread instanceof FastThreadLocalThread);
        }
    }

    @Test
    void aNonBlockingMethodRunsOnTheIoThreadAndABlockingOneOnAWorker() {
        try (MiniCluster cluster = MiniCluster.start(1, b -> b.host(new Where(), HostingConfig.builder().build()))) {
            NeptuneNode caller = cluster.add("caller", ClientConfig.defaults(), b -> b);
            NeptuneClient client = caller.client();
            ReplicatedProcesses.await(() -> client.partitions("where") == 1, Duration.ofSeconds(60),
                    "the caller to see the service");
            NeptuneHandle handle = NeptuneHandle.create();

            Where.Ran quick = client.call(handle, "where", 0, "quick", AccessMode.READ, new Where.Ask(false),
                    Where.Ran.class);
            Where.Ran usual = client.call(handle, "where", 0, "usual", AccessMode.READ, new Where.Ask(false),
                    Where.Ran.class);

            assertThat(quick.eventLoop()).as("ran on %s", quick.thread()).isTrue();
            assertThat(usual.eventLoop()).as("ran on %s", usual.thread()).isFalse();
            assertThat(usual.thread()).startsWith("neptune-node-0-where-");
            assertThatThrownBy(() -> client.call(handle, "where", 0, "quick", AccessMode.READ, new Where.Ask(true),
                    Where.Ran.class)).isInstanceOf(RemoteMethodException.class).hasMessageContaining("asked to fail");
        }
    }
}
