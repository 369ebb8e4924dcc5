package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.RequestContext;

/**
 * A hand-made {@link RequestContext} for calling service methods directly in unit tests.
 *
 * @param service the service name
 * @param partition the partition
 * @param method the method name
 * @param mode read or write
 * @param lsn the write's LSN, 0 for reads and unreplicated writes
 * @param node the node the call pretends to run on
 */
public record FakeRequestContext(String service, int partition, String method, AccessMode mode, long lsn, NodeId node)
        implements RequestContext {
    /** The node every factory uses. */
    public static final NodeId NODE = NodeId.of("test-node");

    /** Validates the fields. */
    public FakeRequestContext {
        requireNonNull(service, "service");
        requireNonNull(method, "method");
        requireNonNull(mode, "mode");
        requireNonNull(node, "node");
    }

    /** A replicated write of {@code method} with {@code lsn} on {@code partition} of {@code service}. */
    public static FakeRequestContext write(String service, String method, int partition, long lsn) {
        return new FakeRequestContext(service, partition, method, AccessMode.WRITE, lsn, NODE);
    }

    /** A read of {@code method} on {@code partition} of {@code service}. */
    public static FakeRequestContext read(String service, String method, int partition) {
        return new FakeRequestContext(service, partition, method, AccessMode.READ, 0, NODE);
    }
}
