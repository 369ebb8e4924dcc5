package io.neptune.server.internal;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.util.Map;
import org.slf4j.MDC;

/**
 * Answers with the MDC its method saw, and leaves a key of its own behind when asked to, as a
 * careless service would: the node must take it away before the thread serves anything else.
 */
@NeptuneService(name = "mdc", partitions = 2)
public final class MdcTestService {
    /** A call; {@code leave}, if not empty, is put in the MDC under {@code user} and never removed. */
    public record Call(String leave) {}

    /** The MDC the method saw, and the thread it ran on. */
    public record Seen(Map<String, String> mdc, String thread) {}

    @Read
    public Seen read(RequestContext context, Call call) {
        return seen(call);
    }

    @Read(blocking = false)
    public Seen inline(RequestContext context, Call call) {
        return seen(call);
    }

    @Write
    public Seen write(RequestContext context, Call call) {
        return seen(call);
    }

    private static Seen seen(Call call) {
        Map<String, String> mdc = MDC.getCopyOfContextMap();
        if (!call.leave().isEmpty()) {
            MDC.put("user", call.leave());
        }
        return new Seen(mdc == null ? Map.of() : mdc, Thread.currentThread().getName());
    }
}
