package io.neptune.examples.cli;

import io.neptune.examples.demo.DemoCommand;
import io.neptune.server.cli.AdminCommand;
import io.neptune.server.cli.CertsCommand;
import io.neptune.server.cli.NeptuneCli;
import io.neptune.server.cli.NodeCommand;
import io.neptune.server.cli.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The source tree's {@code ./neptune}: the distribution's {@code node}, {@code admin} and {@code certs}
 * ({@link NeptuneCli}) plus the examples' {@code gateway} and {@code demo}.
 */
@Command(name = "neptune", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Partitioned, replicated, load-balanced cluster services.",
        subcommands = {NodeCommand.class, GatewayCommand.class, DemoCommand.class, AdminCommand.class,
            CertsCommand.class},
        footer = {"  bench    Run the benchmarks of docs/PERFORMANCE.md and the nemesis of",
            "             docs/RELIABILITY.md (launcher only): ./neptune bench all --quick;",
            "             ./neptune bench alone lists every experiment.",
            "  simulate Run seeds of the deterministic replication simulation (launcher only):",
            "             ./neptune simulate --seeds 1000 [--seed S] [--modes all] [--trace].",
            "  --log-format text|json",
            "           Log lines as text (the default) or JSON lines (launcher option,",
            "             anywhere on the line; or NEPTUNE_LOG_FORMAT=json)."})
public final class Main implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit status; for tests. */
    public static int run(String... args) {
        return NeptuneCli.execute(new CommandLine(new Main()), args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
