package io.neptune.examples.cli;

import io.neptune.examples.gateway.HttpGateway;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code neptune gateway --config FILE --port 8080 [--admin-token-file FILE]}: joins the cluster of a
 * node config file as a node hosting nothing and serves the HTTP gateway (JSON API, web UI,
 * dashboard) until stopped. Access rules: docs/SECURITY.md, "Gateway".
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

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "A file holding the admin token that POST /admin/... needs as 'Authorization: Bearer TOKEN'"
                    + " (default: none, and admin actions are refused).")
    private @Nullable Path adminTokenFile;

    @Option(names = "--allowed-host", paramLabel = "HOST[:PORT]",
            description = "A Host the gateway answers to besides its own addresses, such as the name of a proxy in"
                    + " front of it; repeatable. Requests naming other hosts are refused with 421.")
    private List<String> allowedHosts = new ArrayList<>();

    @Option(names = "--anonymous", arity = "1", paramLabel = "true|false",
            description = "Whether callers without a token may use /api and GET /admin (default: true when bound to"
                    + " loopback, else false).")
    private @Nullable Boolean anonymous;

    @Override
    public Integer call() throws InterruptedException {
        NodeConfig file = NodeConfigFile.load(config).node();
        String id = nodeId != null ? nodeId : "gateway-" + ProcessHandle.current().pid();
        // Free ports: the file may be a hosting node's, whose fixed ports that node already holds.
        NodeConfig gatewayConfig = file.toBuilder().node(id).port(0).pollPort(0).build();
        NeptuneNode node = NeptuneNode.builder(gatewayConfig).start();
        HttpGateway gateway;
        try {
            HttpGateway.Builder builder = HttpGateway.builder(node).bindAddress(bindAddress).port(port);
            if (adminTokenFile != null) {
                builder.adminTokenFile(adminTokenFile);
            }
            allowedHosts.forEach(builder::allowedHost);
            if (anonymous != null) {
                builder.anonymousAccess(anonymous);
            }
            gateway = builder.start();
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
