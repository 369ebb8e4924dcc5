package io.neptune.server;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A node process for multi-process tests: starts the node described by a YAML config file,
 * prints {@code READY <node>}, and runs until its standard input closes, its parent dies or the
 * node is closed otherwise (a drain), then prints {@code STOPPED <node>} and returns.
 */
final class ConfigNodeMain {
    private ConfigNodeMain() {}

    public static void main(String[] args) throws IOException {
        NeptuneNode node = NodeConfigFile.load(Path.of(args[0])).toBuilder().start();
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        System.out.println("READY " + node.node());
        System.out.flush();
        Thread stdin = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // run until the test closes our standard input
                }
            } catch (IOException e) {
                // no more input: stop as if it was closed
            }
            node.close();
        }, "stdin-watch");
        stdin.setDaemon(true);
        stdin.start();
        try {
            node.awaitClose(); // closed from stdin, or by a drain an operator asked for
        } catch (InterruptedException e) {
            node.close();
        }
        System.out.println("STOPPED " + node.node());
    }
}
