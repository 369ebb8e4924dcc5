package io.neptune.server.cli;

import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfigFile;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code neptune node --config FILE}: runs one node until it is stopped. The first SIGTERM or Ctrl-C
 * drains it, a second stops it at once; the exit status says which ({@link io.neptune.server.StopOutcome}).
 */
@Command(name = "node", mixinStandardHelpOptions = true, description = "Run one Neptune node from a config file.")
public final class NodeCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "The node's YAML config file.")
    private Path config;

    @Option(names = "--parent-pid", paramLabel = "PID", hidden = true,
            description = "Exit when this process ends (used by the demo so no node outlives it).")
    private long parentPid;

    @Override
    public Integer call() throws InterruptedException {
        NodeConfigFile file = NodeConfigFile.load(config);
        NeptuneNode node = file.toBuilder().start();
        if (parentPid > 0) {
            Optional<ProcessHandle> parent = ProcessHandle.of(parentPid);
            if (parent.isEmpty()) {
                node.close();
                return 1;
            }
            parent.get().onExit().thenRun(() -> System.exit(0));
        }
        return node.runUntilStopped(() -> { // READY once a SIGTERM drains the node: whoever waits for it may stop it
            System.out.println("READY " + node.node() + " " + node.requestAddress().getPort() + " pid="
                    + ProcessHandle.current().pid());
            System.out.flush();
        }).exitCode();
    }
}
