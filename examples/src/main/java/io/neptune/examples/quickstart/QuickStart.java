package io.neptune.examples.quickstart;

import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneService;
import io.neptune.core.PartitionKey;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.server.HostingConfig;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;

/** The README's quick start: define a service, host it on a node, call it directly and through a proxy. */
public final class QuickStart {
    public record Hello(String name) {}

    public record Greeting(String text, int partition) {}

    @NeptuneService(name = "greeter", partitions = 4)
    public static final class Greeter {
        @Read
        public Greeting greet(RequestContext context, Hello hello) {
            return new Greeting("Hello, " + hello.name() + "!", context.partition());
        }
    }

    /** The typed client view: the partition comes from the key. */
    public interface Greeters {
        @Read
        Greeting greet(@PartitionKey String user, Hello hello);
    }

    public static void main(String[] args) {
        try (NeptuneNode node = NeptuneNode.builder(NodeConfig.builder().node("quickstart").build())
                .host(new Greeter(), HostingConfig.all())
                .start()) {
            Greeting direct = node.client().call(NeptuneHandle.create(), "greeter", 2, "greet", AccessMode.READ,
                    new Hello("Ada"), Greeting.class);
            Greeters greeters = node.client().proxy(Greeters.class, "greeter");
            System.out.println(direct.text() + " / " + greeters.greet("grace", new Hello("Grace")).text());
        }
    }

    private QuickStart() {}
}
