package io.neptune.examples.echo;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;

/** Echoes a message back, naming the node and partition that served it. Stateless. */
@NeptuneService(name = "echo", partitions = 16)
public final class EchoService {
    /**
     * What to echo.
     *
     * @param message any text
     */
    public record EchoRequest(String message) {}

    /**
     * The echo.
     *
     * @param message the request's text
     * @param node the node that served the call
     * @param partition the partition it ran on
     */
    public record EchoReply(String message, String node, int partition) {}

    /** Returns the message with the serving node and partition. */
    @Read
    public EchoReply echo(RequestContext context, EchoRequest request) {
        return new EchoReply(request.message(), context.node().value(), context.partition());
    }
}
