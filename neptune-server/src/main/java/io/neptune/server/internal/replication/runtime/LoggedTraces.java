package io.neptune.server.internal.replication.runtime;

import io.neptune.client.internal.Tracing;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.server.internal.log.LogRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The trace contexts of the traced writes a primary logged lately, by LSN: its {@code replicate}
 * messages carry them to the other replicas as metadata ({@value #KEY_PREFIX}LSN →
 * {@code traceparent}), so each replica's handling of a record is a span of its write's trace
 * ({@link ReplicationTracing}). A partition that never logged a traced write holds nothing.
 *
 * <p>Bounded twice: the latest {@value #CAPACITY} records are kept (one sent again after that goes
 * untraced), and a message carries the contexts of its first {@link Metadata#MAX_ENTRIES} traced
 * records (the metadata's limit; the others go untraced).
 *
 * <p>Thread-safety: confined to the partition's serial executor.
 */
final class LoggedTraces {
    /** How a metadata key names the LSN whose trace context it holds. */
    static final String KEY_PREFIX = "tp.";
    static final int CAPACITY = 256;

    private @Nullable Map<Long, String> byLsn;   // made by the first traced write

    /** Record {@code lsn} was logged for a write whose request carried {@code metadata}. */
    void logged(long lsn, Metadata metadata) {
        String traceparent = metadata.get(Tracing.TRACEPARENT).orElse(null);
        if (traceparent == null) {
            return;
        }
        if (byLsn == null) {
            byLsn = new LinkedHashMap<>() {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
                    return size() > CAPACITY;
                }
            };
        }
        byLsn.put(lsn, traceparent);
    }

    /** The metadata of a message that carries {@code records}: the trace contexts of its traced ones. */
    Metadata of(List<LogRecord> records) {
        Map<Long, String> traces = byLsn;
        if (traces == null || traces.isEmpty()) {
            return Metadata.NONE;
        }
        Map<String, String> entries = new LinkedHashMap<>();
        for (LogRecord record : records) {
            String traceparent = traces.get(record.lsn());
            if (traceparent != null) {
                entries.put(KEY_PREFIX + record.lsn(), traceparent);
                if (entries.size() == Metadata.MAX_ENTRIES) {
                    break;
                }
            }
        }
        return entries.isEmpty() ? Metadata.NONE : new Metadata(entries);
    }
}
