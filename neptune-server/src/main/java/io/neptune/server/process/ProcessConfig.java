package io.neptune.server.process;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.Checks;
import io.neptune.server.process.internal.CommandTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A process-backed service: which program its {@code run} method runs, and how. Immutable; create
 * with {@link #builder(String, List)}. In a node's YAML it is a {@code services} entry's
 * {@code process:} section (keys in {@code docs/CONFIGURATION.md}).
 *
 * <p>The command, working directory and environment values may hold the placeholders
 * {@code {partition}}, {@code {partitions}}, {@code {service}} and {@code {node}}; the command may
 * also hold the whole elements {@code {partition-args}} ({@link #partitionArguments()} of the
 * request's partition) and, per request only, {@code {args}} ({@link ProcessRequest#args()}). A
 * BLAST partition: {@code [blastn, -db, "db/part-{partition}", -outfmt, "6"]}.
 *
 * <p>The service has one method, {@code run}, a read: a program's effects cannot be replicated as
 * a write, because replicas re-execute writes and Neptune cannot check that a program does so
 * deterministically (see {@code docs/ARCHITECTURE.md}).
 *
 * @param name the service's cluster-wide name
 * @param partitions the service's partition count
 * @param command the program and its arguments, a template
 * @param workingDirectory the directory the program runs in, a template; empty means the node's own
 * @param environment variables added to (or replacing those of) the node's environment, templates
 * @param partitionArguments per partition, what the command's {@code {partition-args}} element becomes
 * @param mode a process per request, or warm processes fed framed requests
 * @param timeout how long one request's run may take; the call's own deadline cuts it shorter
 * @param maxProcesses how many of the service's processes may run at once on the node (per request:
 *     running requests; warm: live processes, idle ones included)
 * @param maxOutputBytes the most a response may hold; a program writing more is killed
 */
public record ProcessConfig(String name, int partitions, List<String> command, String workingDirectory,
        Map<String, String> environment, Map<Integer, List<String>> partitionArguments, ProcessMode mode,
        Duration timeout, int maxProcesses, int maxOutputBytes) {
    /** Default for {@link #partitions()}. */
    public static final int DEFAULT_PARTITIONS = 1;
    /** Default for {@link #timeout()}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** Default for {@link #maxProcesses()}: the default number of a service's workers. */
    public static final int DEFAULT_MAX_PROCESSES = 8;
    /** Default for {@link #maxOutputBytes()}: 1 MiB. */
    public static final int DEFAULT_MAX_OUTPUT_BYTES = 1 << 20;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** Validates the fields and copies the collections. */
    public ProcessConfig {
        requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name: '" + name + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
        if (partitions < 1 || partitions > ServiceDescriptor.MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: 1.."
                    + ServiceDescriptor.MAX_PARTITIONS + ")");
        }
        command = List.copyOf(command);
        if (command.isEmpty() || command.get(0).isBlank()) {
            throw new IllegalArgumentException("command: " + command + " (expected: the program and its arguments)");
        }
        requireNonNull(mode, "mode");
        Set<String> elements = mode == ProcessMode.PER_REQUEST
                ? Set.of(CommandTemplate.ARGS, CommandTemplate.PARTITION_ARGS) : Set.of(CommandTemplate.PARTITION_ARGS);
        for (int i = 0; i < command.size(); i++) {
            CommandTemplate.check("command[" + i + "]", command.get(i), i == 0 ? Set.of() : elements);
        }
        requireNonNull(workingDirectory, "workingDirectory");
        CommandTemplate.check("working-directory", workingDirectory, Set.of());
        environment = Map.copyOf(new LinkedHashMap<>(environment));
        for (Map.Entry<String, String> variable : environment.entrySet()) {
            if (!VARIABLE.matcher(variable.getKey()).matches()) {
                throw new IllegalArgumentException("environment: '" + variable.getKey()
                        + "' (expected: a variable name of letters, digits and '_')");
            }
            CommandTemplate.check("environment." + variable.getKey(), variable.getValue(), Set.of());
        }
        Map<Integer, List<String>> arguments = new TreeMap<>();
        for (Map.Entry<Integer, List<String>> entry : partitionArguments.entrySet()) {
            int partition = entry.getKey();
            if (partition < 0 || partition >= partitions) {
                throw new IllegalArgumentException("partition-args: partition " + partition + " (expected: 0.."
                        + (partitions - 1) + ")");
            }
            List<String> args = List.copyOf(entry.getValue());
            for (String arg : args) {
                CommandTemplate.check("partition-args." + partition, arg, Set.of());
            }
            arguments.put(partition, args);
        }
        partitionArguments = java.util.Collections.unmodifiableMap(arguments);
        if (!partitionArguments.isEmpty() && !command.contains(CommandTemplate.PARTITION_ARGS)) {
            throw new IllegalArgumentException("partition-args: given, but the command has no "
                    + CommandTemplate.PARTITION_ARGS + " element (expected: the place they go in the command)");
        }
        Checks.positive("timeout", timeout);
        Checks.atLeast("max-processes", maxProcesses, 1);
        Checks.atLeast("max-output", maxOutputBytes, 1);
    }

    /** The arguments {@code {partition-args}} becomes for {@code partition}; empty if none are configured. */
    public List<String> partitionArguments(int partition) {
        return partitionArguments.getOrDefault(partition, List.of());
    }

    /** The program's name, the command's first element, as errors name it. */
    public String program() {
        return command.get(0);
    }

    /** Returns a builder for a service {@code name} running {@code command}, with every other default. */
    public static Builder builder(String name, List<String> command) {
        return new Builder(name, command);
    }

    @Override
    public String toString() {
        return "process " + name + "[partitions=" + partitions + ", " + mode.name().toLowerCase(java.util.Locale.ROOT)
                + ", command=" + command + (workingDirectory.isEmpty() ? "" : ", dir=" + workingDirectory)
                + (environment.isEmpty() ? "" : ", env=" + environment.keySet())
                + (partitionArguments.isEmpty() ? "" : ", partition-args=" + partitionArguments)
                + ", timeout=" + timeout + ", max-processes=" + maxProcesses + ", max-output=" + maxOutputBytes + "]";
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private final String name;
        private final List<String> command;
        private int partitions = DEFAULT_PARTITIONS;
        private String workingDirectory = "";
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final Map<Integer, List<String>> partitionArguments = new LinkedHashMap<>();
        private ProcessMode mode = ProcessMode.PER_REQUEST;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxProcesses = DEFAULT_MAX_PROCESSES;
        private int maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES;

        private Builder(String name, List<String> command) {
            this.name = requireNonNull(name, "name");
            this.command = new ArrayList<>(command);
        }

        /** Sets {@link ProcessConfig#partitions()}. */
        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        /** Sets {@link ProcessConfig#workingDirectory()}. */
        public Builder workingDirectory(String workingDirectory) {
            this.workingDirectory = requireNonNull(workingDirectory, "workingDirectory");
            return this;
        }

        /** Adds a variable to {@link ProcessConfig#environment()}. */
        public Builder environment(String variable, String value) {
            environment.put(requireNonNull(variable, "variable"), requireNonNull(value, "value"));
            return this;
        }

        /** Sets the arguments {@code {partition-args}} becomes for {@code partition}. */
        public Builder partitionArguments(int partition, List<String> arguments) {
            partitionArguments.put(partition, List.copyOf(arguments));
            return this;
        }

        /** Sets {@link ProcessConfig#mode()}. */
        public Builder mode(ProcessMode mode) {
            this.mode = requireNonNull(mode, "mode");
            return this;
        }

        /** Sets {@link ProcessConfig#timeout()}. */
        public Builder timeout(Duration timeout) {
            this.timeout = requireNonNull(timeout, "timeout");
            return this;
        }

        /** Sets {@link ProcessConfig#maxProcesses()}. */
        public Builder maxProcesses(int maxProcesses) {
            this.maxProcesses = maxProcesses;
            return this;
        }

        /** Sets {@link ProcessConfig#maxOutputBytes()}. */
        public Builder maxOutputBytes(int maxOutputBytes) {
            this.maxOutputBytes = maxOutputBytes;
            return this;
        }

        /** Builds and validates the config. */
        public ProcessConfig build() {
            return new ProcessConfig(name, partitions, command, workingDirectory, environment, partitionArguments, mode,
                    timeout, maxProcesses, maxOutputBytes);
        }
    }
}
