package io.neptune.server.internal.replication.runtime;

import io.neptune.core.Snapshottable;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.ServiceRuntime;
import io.neptune.server.internal.log.LogRecord;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** One partition of a hosted service, as replication sees it. */
final class RuntimePartition implements PartitionService {
    private final ServiceRuntime runtime;
    private final int partition;

    RuntimePartition(ServiceRuntime runtime, int partition) {
        this.runtime = runtime;
        this.partition = partition;
    }

    @Override
    public ResponseMessage execute(LogRecord record) {
        return runtime.executeWrite(partition, record.method(), record.payload(), record.lsn(), record.requestId());
    }

    @Override
    public boolean isApplied(long lsn) {
        return runtime.check(partition, lsn);
    }

    @Override
    public @Nullable String undecodable(RequestMessage request) {
        return runtime.undecodable(request);
    }

    @Override
    public boolean hasCheck() {
        return runtime.descriptor().checkMethod().isPresent();
    }

    @Override
    public Optional<String> digest() {
        return runtime.digest(partition);
    }

    @Override
    public Optional<Snapshottable> snapshottable() {
        return runtime.snapshottable();
    }
}
