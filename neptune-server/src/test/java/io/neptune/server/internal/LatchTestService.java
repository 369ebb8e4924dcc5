package io.neptune.server.internal;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A service whose read holds its worker until the test releases it, and that records its
 * lifecycle calls with {@link ServiceEnvironment#partitions()} as each saw it; for tests of how a
 * node adds and removes partitions under running calls.
 */
@NeptuneService(name = "latch", partitions = 2)
public final class LatchTestService implements ServiceLifecycle {
    /** Holds the worker until {@link #release()}. */
    public record Hold() {}

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile @Nullable ServiceEnvironment environment;
    private volatile boolean refuse;

    @Override
    public void start(ServiceEnvironment environment) {
        this.environment = environment;
        events.add("start " + environment.partitions());
    }

    @Override
    public void partitionAdded(int partition) {
        if (refuse) {
            throw new IllegalStateException("no room for partition " + partition);
        }
        events.add("added " + partition + " " + environment().partitions());
    }

    @Override
    public void partitionRemoved(int partition) {
        events.add("removed " + partition + " " + environment().partitions());
    }

    /** Records the call, then waits (up to 30 s) for {@link #release()}. */
    @Read
    public String hold(RequestContext context, Hold request) throws InterruptedException {
        events.add("hold " + context.partition());
        entered.countDown();
        released.await(30, TimeUnit.SECONDS);
        events.add("held " + context.partition());
        return "held";
    }

    /** Waits until a {@link #hold} call runs. */
    boolean awaitHolding() throws InterruptedException {
        return entered.await(30, TimeUnit.SECONDS);
    }

    /** Lets every {@link #hold} call return. */
    void release() {
        released.countDown();
    }

    /** Makes {@link #partitionAdded} throw. */
    void refuse() {
        refuse = true;
    }

    List<String> events() {
        return List.copyOf(events);
    }

    ServiceEnvironment environment() {
        ServiceEnvironment started = environment;
        if (started == null) {
            throw new IllegalStateException("not started");
        }
        return started;
    }
}
