package io.neptune.server;

import io.neptune.core.NeptuneService;
import io.neptune.core.Principal.Role;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;

/** A service with a method only operators may call, one anyone may, and one that tells its call's class. */
@NeptuneService(name = "guarded", partitions = 1)
public final class GuardedTestService {
    @Read(roles = Role.OPERATOR)
    public Reply secret(RequestContext context, Echo request) {
        return new Reply("secret " + request.text(), context.node().value(), context.partition());
    }

    @Read
    public Reply open(RequestContext context, Echo request) {
        return new Reply(request.text(), context.node().value(), context.partition());
    }

    @Read
    public Reply serviceClass(RequestContext context, Echo request) {
        return new Reply(context.serviceClass(), context.node().value(), context.partition());
    }
}
