package io.neptune.server.process.internal;

import io.neptune.core.ConfigException;
import io.neptune.core.internal.config.ConfigNode;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessMode;
import java.util.List;

/**
 * Reads a {@code process:} section of a node's config file into a {@link ProcessConfig}, through its
 * builder (so file and code share one validation path). Keys in {@code docs/CONFIGURATION.md}.
 *
 * <p>Thread-safety: stateless.
 */
public final class ProcessConfigs {
    private ProcessConfigs() {}

    /** Parses {@code n}; the caller {@linkplain ConfigNode#finish() finishes} it. */
    public static ProcessConfig parse(ConfigNode n) {
        String name = n.string("name", "");
        if (name.isEmpty()) {
            throw new ConfigException(n.path() + ".name", "missing (expected: the service's name)");
        }
        if (!n.has("command")) {
            throw new ConfigException(n.path() + ".command", "missing (expected: the program and its arguments, one"
                    + " element each, such as [blastn, -db, 'db/part-{partition}'])");
        }
        List<String> command = n.literalStrings("command"); // a shell's ${x} is the shell's
        if (command.size() == 1 && command.get(0).strip().contains(" ")) {
            throw new ConfigException(n.path() + ".command", "'" + command.get(0) + "' (expected: a list with one"
                    + " element per argument, such as [" + String.join(", ", command.get(0).strip().split("\\s+"))
                    + "]; no shell splits it)");
        }
        String access = n.string("access", "read");
        if (!access.equals("read")) {
            throw new ConfigException(n.path() + ".access", "'" + access + "' (expected: read; a process service"
                    + " cannot declare writes: replicas re-execute every write and must reach the same state, which"
                    + " Neptune cannot check of an external program, so its effects could not be replicated)");
        }
        ProcessConfig.Builder b = ProcessConfig.builder(name, command)
                .partitions(n.integer("partitions", ProcessConfig.DEFAULT_PARTITIONS))
                .workingDirectory(n.string("working-directory", ""))
                .mode(n.choice("mode", ProcessMode.class, ProcessMode.PER_REQUEST))
                .timeout(n.duration("timeout", ProcessConfig.DEFAULT_TIMEOUT))
                .maxProcesses(n.integer("max-processes", ProcessConfig.DEFAULT_MAX_PROCESSES))
                .maxOutputBytes(n.size("max-output", ProcessConfig.DEFAULT_MAX_OUTPUT_BYTES));
        ConfigNode environment = n.section("environment");
        for (String variable : environment.keys()) {
            b.environment(variable, environment.string(variable, ""));
        }
        environment.finish();
        ConfigNode arguments = n.section("partition-args");
        for (String key : arguments.keys()) {
            for (int partition : partitions(arguments.path() + "." + key, key)) {
                b.partitionArguments(partition, arguments.literalStrings(key));
            }
        }
        arguments.finish();
        return b.build();
    }

    /** A partition id or a range such as {@code 0-3}. */
    private static List<Integer> partitions(String key, String spec) {
        try {
            int dash = spec.indexOf('-');
            int from = Integer.parseInt((dash < 0 ? spec : spec.substring(0, dash)).trim());
            int to = dash < 0 ? from : Integer.parseInt(spec.substring(dash + 1).trim());
            if (from < 0 || to < from || to >= io.neptune.core.ServiceDescriptor.MAX_PARTITIONS) {
                throw new NumberFormatException();
            }
            return java.util.stream.IntStream.rangeClosed(from, to).boxed().toList();
        } catch (NumberFormatException e) {
            throw new ConfigException(key, "'" + spec + "' (expected: a partition id or a range such as 0-3)");
        }
    }
}
