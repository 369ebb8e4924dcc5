package io.neptune.server;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A node process for multi-process tests: starts the node described by a YAML config file,
 * prints {@code READY <node>}, and runs until its standard input closes or its parent dies.
 */
final class ConfigNodeMain {
    private ConfigNodeMain() {}

    public static void main(String[] args) throws IOException {
        NeptuneNode node = NodeConfigFile.load(Path.of(args[0])).toBuilder().start();
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        System.out.println("READY " + node.node());
        System.out.flush();
        while (System.in.read() >= 0) {
            // run until the test closes our standard input
        }
        node.close();
    }
}
