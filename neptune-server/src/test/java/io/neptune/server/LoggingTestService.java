package io.neptune.server;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A level-2 service whose methods log with SLF4J as a service author would, without naming the node,
 * partition or request: the lines must get those from the node (docs/OPERATIONS.md, Logs).
 */
@NeptuneService(name = "logged", partitions = 2, consistency = ConsistencyLevel.LEVEL_2)
public final class LoggingTestService {
    private static final Logger logger = LoggerFactory.getLogger(LoggingTestService.class);

    /** A note to log. */
    public record Note(String text) {}

    /** The note, as logged. */
    public record Noted(String text) {}

    private final ConcurrentHashMap<Integer, Long> applied = new ConcurrentHashMap<>();

    @Read
    public Noted note(RequestContext context, Note request) {
        logger.info("noted {}", request.text());
        return new Noted(request.text());
    }

    @Write
    public Noted add(RequestContext context, Note request) {
        logger.info("added {}", request.text());
        applied.merge(context.partition(), context.lsn(), Math::max);
        return new Noted(request.text());
    }

    @Check
    public boolean check(int partition, long lsn) {
        return applied.getOrDefault(partition, 0L) >= lsn;
    }
}
