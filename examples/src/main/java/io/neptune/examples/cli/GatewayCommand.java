package io.neptune.examples.cli;

import io.neptune.examples.gateway.HttpGateway;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code neptune gateway --config FILE --port 8080}: joins the cluster of a node config file as a
 * node hosting nothing and serves the HTTP gateway (JSON API, web UI, dashboard) until stopped.
 */
@Command(name = "gateway", mixinStandardHelpOptions = true,
        description = "Serve the example services over HTTP (JSON API, web UI, cluster dashboard).")
public final class GatewayCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, paramLabel = "FILE",
            description = "A node's YAML config file: its cluster settings are used; its services are not hosted.")
    private Path config;

    @Option(names = "--port", defaultValue = "8080", paramLabel = "PORT",
            description = "HTTP port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    private int port;

    @Option(names = "--bind", defaultValue = HttpGateway.DEFAULT_BIND_ADDRESS, paramLabel = "ADDRESS",
            description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    private String bindAddress;

    @Option(names = "--node", paramLabel = "ID", description = "The gateway node's id (default: gateway-<pid>).")
    private @Nullable String nodeId;

    @Override
    public Integer call() throws InterruptedException {
        NodeConfig file = NodeConfigFile.load(config).node();
        String id = nodeId != null ? nodeId : "gateway-" + ProcessHandle.current().pid();
        // Free ports: the file may be a hosting node's, whose fixed ports that node already holds.
        NodeConfig gatewayConfig = file.toBuilder().node(id).port(0).pollPort(0).build();
        NeptuneNode node = NeptuneNode.builder(gatewayConfig).start();
        HttpGateway gateway;
        try {
            gateway = HttpGateway.builder(node).bindAddress(bindAddress).port(port).start();
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            node.close();
            stopped.countDown();
        }, "neptune-shutdown"));
        System.out.println("READY " + id + " http://" + bindAddress + ":" + gateway.port() + "/ pid="
                + ProcessHandle.current().pid());
        System.out.flush();
        stopped.await();
        return 0;
    }
}
