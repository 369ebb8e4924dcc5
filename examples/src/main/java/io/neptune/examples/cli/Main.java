package io.neptune.examples.cli;

import io.neptune.core.NeptuneException;
import io.neptune.examples.demo.DemoCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code neptune} command line: {@code node}, {@code gateway}, {@code demo}, {@code admin}. */
@Command(name = "neptune", mixinStandardHelpOptions = true, version = "Neptune 0.1.0",
        description = "Partitioned, replicated, load-balanced cluster services.",
        subcommands = {NodeCommand.class, GatewayCommand.class, DemoCommand.class, AdminCommand.class},
        footer = {"  bench    Run the benchmarks of docs/PERFORMANCE.md (launcher only):",
            "             ./neptune bench all --quick, or one of micro, overhead, lb,",
            "             replication, apps, timeline, failover, jmh."})
public final class Main implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit status; for tests. */
    public static int run(String... args) {
        CommandLine commandLine = new CommandLine(new Main());
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof NeptuneException) {
                cmd.getErr().println("neptune: " + cause.getMessage());
                return 2;
            }
            if (cause instanceof java.util.concurrent.TimeoutException) {
                cmd.getErr().println("neptune: no answer from the cluster in time (is a node of it running, with the"
                        + " same cluster settings?)");
                return 2;
            }
            throw e;
        });
        return commandLine.execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
