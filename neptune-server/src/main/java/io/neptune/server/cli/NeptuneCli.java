package io.neptune.server.cli;

import io.neptune.core.NeptuneException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code neptune} command line of the distribution ({@code bin/neptune}): {@code node} runs a
 * node from a config file with the service classes found on the class path, {@code admin} inspects
 * and acts on a running cluster, {@code certs} makes a development certificate authority and the
 * certificates of nodes, operators and clients.
 *
 * <p>Other launchers (the examples' {@code ./neptune} adds {@code gateway} and {@code demo}) build
 * their own root command with these subcommands and run it through {@link #execute}, so every
 * launcher reports errors the same way.
 */
@Command(name = "neptune", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Partitioned, replicated, load-balanced cluster services.",
        subcommands = {NodeCommand.class, AdminCommand.class, CertsCommand.class},
        footer = {"", "Service classes are loaded from the class path: put their jar in lib/ or name it in"
                + " NEPTUNE_CLASSPATH.", "Logs are text lines on stderr; --log-format json (an option of bin/neptune,"
                + " anywhere on the line) or NEPTUNE_LOG_FORMAT=json makes them JSON lines."})
public final class NeptuneCli implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit status (0 success, 2 a reported error). */
    public static int run(String... args) {
        return execute(new CommandLine(new NeptuneCli()), args);
    }

    /**
     * Runs {@code commandLine} on {@code args}: a {@link NeptuneException} (bad config, unknown
     * service, ...) is printed as one {@code neptune: ...} line with exit status 2, not a stack trace.
     */
    public static int execute(CommandLine commandLine, String... args) {
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof NeptuneException) {
                cmd.getErr().println("neptune: " + cause.getMessage());
                return 2;
            }
            if (cause instanceof TimeoutException) {
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
