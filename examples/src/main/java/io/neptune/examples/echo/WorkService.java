package io.neptune.examples.echo;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;

/**
 * Holds a worker for a given time, like a request with that service time: the way the
 * dissertation's experiments emulate server capacity.
 */
@NeptuneService(name = "work", partitions = 16)
public final class WorkService {
    /** Longest a single call may sleep. */
    public static final long MAX_MILLIS = 10_000;

    /**
     * How long to work.
     *
     * @param millis service time in milliseconds, 0 to {@value #MAX_MILLIS}
     */
    public record WorkRequest(long millis) {
        /** Validates the service time. */
        public WorkRequest {
            if (millis < 0 || millis > MAX_MILLIS) {
                throw new IllegalArgumentException("millis: " + millis + " (expected: 0.." + MAX_MILLIS + ")");
            }
        }
    }

    /**
     * The work's receipt.
     *
     * @param millis the service time asked for
     * @param node the node that served the call
     * @param partition the partition it ran on
     */
    public record WorkReply(long millis, String node, int partition) {}

    /** Sleeps for the requested time, then answers. */
    @Read
    public WorkReply work(RequestContext context, WorkRequest request) throws InterruptedException {
        Thread.sleep(request.millis());
        return new WorkReply(request.millis(), context.node().value(), context.partition());
    }
}
