package io.neptune.server;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs the entry point of Neptune's container image (an OCI tarball that {@code jib:buildTar} made)
 * the way a container engine would, in a network namespace the caller made, with bind mounts and
 * environment variables. {@link #podman} loads the image into a podman storage of its own (under
 * the work directory, so the host's images are never touched); {@link #unpacked} extracts the
 * image's layers and runs its entry point with {@code unshare} (mount and PID namespaces) and
 * {@code chroot}, as user, working directory and environment of the image's config say.
 *
 * <p>{@link #close} removes every container this runner started, the image and its storage; call it
 * on every path. Thread-safety: not thread-safe; one test thread uses it.
 */
abstract class ImageRunner implements AutoCloseable {
    /** A bind mount: {@code host} at {@code container}, read-only if so. */
    record Mount(Path host, String container, boolean readOnly) {}

    final Path work;
    final List<String> names = new ArrayList<>();

    private ImageRunner(Path work) {
        this.work = work;
    }

    /**
     * A runner on podman (runc) with storage under {@code work}, if podman runs a container of the
     * image here (probed once with {@code --version}); else why not.
     */
    static Result<ImageRunner> podman(Path image, Path work) {
        Podman podman = new Podman(image, work);
        try {
            Optional<String> problem = podman.load();
            if (problem.isPresent()) {
                podman.close();
                return Result.failed(problem.get());
            }
            return Result.of(podman);
        } catch (RuntimeException e) {
            podman.close();
            return Result.failed("podman: " + e.getMessage());
        }
    }

    /** A runner that unpacks the image under {@code work} and runs its entry point with unshare and chroot. */
    static Result<ImageRunner> unpacked(Path image, Path work) {
        for (String tool : List.of("unshare", "chroot", "mount", "tar")) {
            if (Commands.run(List.of("sh", "-c", "command -v " + tool)).exit() != 0) {
                return Result.failed("no `" + tool + "` on this machine");
            }
        }
        try {
            return Result.of(new Unpacked(image, work));
        } catch (IOException | RuntimeException e) {
            return Result.failed("cannot unpack " + image + ": " + e.getMessage());
        }
    }

    /** A runner, or why there is none. */
    record Result<T>(Optional<T> runner, String problem) {
        static <T> Result<T> of(T runner) {
            return new Result<>(Optional.of(runner), "");
        }

        static <T> Result<T> failed(String problem) {
            return new Result<>(Optional.empty(), problem);
        }
    }

    /** What the runner is, for messages. */
    abstract String describe();

    /**
     * Starts the image's entry point as container {@code name} in network namespace {@code namespace}
     * with {@code args} after the entry point (none: the image's {@code Cmd}), {@code mounts} and
     * {@code environment} added to the image's.
     */
    abstract NodeProcess start(String name, String namespace, List<String> args, List<Mount> mounts,
            Map<String, String> environment, Path log);

    /** Sends SIGTERM to container {@code name}'s main process (as {@code podman stop} does) without waiting. */
    abstract void stop(String name, NodeProcess process);

    /** Removes every container this runner started, and the image; idempotent. */
    @Override
    public abstract void close();

    private static final class Podman extends ImageRunner {
        private final Path image;
        private String reference = "";

        Podman(Path image, Path work) {
            super(work);
            this.image = image;
        }

        private List<String> podman(String... args) {
            List<String> command = new ArrayList<>(List.of("podman", "--root", work.resolve("storage").toString(),
                    "--runroot", work.resolve("run").toString(), "--storage-driver", "vfs", "--runtime", "runc",
                    "--events-backend", "file", "--cgroup-manager", "cgroupfs"));
            command.addAll(List.of(args));
            return command;
        }

        Optional<String> load() {
            if (Commands.run(List.of("sh", "-c", "command -v podman && command -v runc")).exit() != 0) {
                return Optional.of("podman or runc is not installed");
            }
            List<String> load = podman("load", "--quiet", "--input", image.toString());
            Commands.Result loaded = Commands.run(load);
            if (loaded.exit() != 0) {
                return Optional.of(loaded.describe(load));
            }
            reference = loaded.output().lines().filter(l -> l.startsWith("Loaded image")).map(l -> l.replaceFirst(
                    "^Loaded image(?:\\(s\\))?: *", "")).findFirst().orElse("").trim();
            if (reference.isEmpty()) {
                return Optional.of("`podman load` named no image: " + loaded.output().trim());
            }
            List<String> probe = new ArrayList<>(podman("run", "--rm", "--pull", "never", "--network", "none"));
            probe.addAll(limits());
            probe.addAll(List.of("--entrypoint", "/opt/neptune/bin/neptune", reference, "--version"));
            Commands.Result version = Commands.run(probe);
            if (version.exit() != 0 || !version.output().contains("Neptune ")) {
                return Optional.of("podman cannot run a container of the image here: " + version.describe(probe));
            }
            return Optional.empty();
        }

        /**
         * runc sets the container's limits to podman's defaults, which may exceed what this process may
         * set (then runc fails with "error setting rlimit"): ask for this process's own hard limits.
         */
        private static List<String> limits() {
            String files = hardLimit("Max open files", 1_048_576);
            String processes = hardLimit("Max processes", 32_768);
            return List.of("--ulimit", "nofile=" + files + ":" + files,
                    "--ulimit", "nproc=" + processes + ":" + processes);
        }

        /** The hard limit {@code name} of /proc/self/limits, at most {@code cap}. */
        private static String hardLimit(String name, long cap) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                    if (line.startsWith(name + " ")) {
                        String hard = line.substring(name.length()).trim().split("\\s+")[1];
                        return Long.toString(hard.equals("unlimited") ? cap : Math.min(cap, Long.parseLong(hard)));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read /proc/self/limits", e);
            }
            throw new IllegalStateException("no '" + name + "' in /proc/self/limits");
        }

        @Override
        String describe() {
            return "podman (runc) with " + reference;
        }

        @Override
        NodeProcess start(String name, String namespace, List<String> args, List<Mount> mounts,
                Map<String, String> environment, Path log) {
            List<String> command = new ArrayList<>(podman("run", "--rm", "--pull", "never", "--name", name,
                    "--hostname", name, "--network", "ns:/run/netns/" + namespace, "--memory", "384m"));
            command.addAll(limits());
            for (Mount mount : mounts) {
                command.addAll(List.of("--volume",
                        mount.host() + ":" + mount.container() + (mount.readOnly() ? ":ro" : "")));
            }
            environment.forEach((key, value) -> command.addAll(List.of("--env", key + "=" + value)));
            command.add(reference);
            command.addAll(args);
            names.add(name);
            return NodeProcess.start(name, command, log);
        }

        @Override
        void stop(String name, NodeProcess process) {
            try {
                // podman stop waits for the exit (up to --time); the test waits on the container's process instead
                new ProcessBuilder(podman("stop", "--time", "60", name)).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run podman stop " + name, e);
            }
        }

        @Override
        public void close() {
            for (String name : names) {
                Commands.run(podman("rm", "--force", "--time", "0", name));
            }
            if (!reference.isEmpty()) {
                Commands.run(podman("rmi", "--force", reference));
            }
            Commands.run(podman("system", "reset", "--force"));
        }
    }

    private static final class Unpacked extends ImageRunner {
        private final Path root;
        private final String user;
        private final String workingDirectory;
        private final List<String> entrypoint = new ArrayList<>();
        private final List<String> defaultArgs = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();

        Unpacked(Path image, Path work) throws IOException {
            super(work);
            Path oci = Files.createDirectories(work.resolve("oci"));
            run(List.of("tar", "-C", oci.toString(), "-xf", image.toString()));
            ObjectMapper json = new ObjectMapper();
            JsonNode manifest = json.readTree(blob(oci, json.readTree(oci.resolve("index.json").toFile())
                    .path("manifests").path(0).path("digest").asText()).toFile());
            JsonNode config = json.readTree(blob(oci, manifest.path("config").path("digest").asText()).toFile())
                    .path("config");
            root = Files.createDirectories(work.resolve("root"));
            for (JsonNode layer : manifest.path("layers")) {   // Jib's layers have no whiteouts
                run(List.of("tar", "-C", root.toString(), "--numeric-owner", "--warning=no-unknown-keyword",
                        "-xzpf", blob(oci, layer.path("digest").asText()).toString()));
            }
            user = config.path("User").asText("0:0");
            workingDirectory = config.path("WorkingDir").asText("/");
            config.path("Entrypoint").forEach(a -> entrypoint.add(a.asText()));
            config.path("Cmd").forEach(a -> defaultArgs.add(a.asText()));
            for (JsonNode variable : config.path("Env")) {
                String[] pair = variable.asText().split("=", 2);
                environment.put(pair[0], pair[1]);
            }
            if (entrypoint.isEmpty()) {
                throw new IllegalStateException("the image's config has no Entrypoint");
            }
        }

        private static Path blob(Path oci, String digest) {
            return oci.resolve("blobs").resolve(digest.replace(':', File.separatorChar));
        }

        private static void run(List<String> command) {
            Commands.Result result = Commands.run(command);
            if (result.exit() != 0) {
                throw new IllegalStateException(result.describe(command));
            }
        }

        @Override
        String describe() {
            return "the image unpacked at " + root + ", run with unshare and chroot";
        }

        @Override
        NodeProcess start(String name, String namespace, List<String> args, List<Mount> mounts,
                Map<String, String> extra, Path log) {
            // Mounts are made inside the new mount namespace, so they vanish with it; each container gets its own /tmp.
            StringBuilder script = new StringBuilder("set -e; mount --rbind /dev \"$0/dev\"; mount --bind ")
                    .append(quote(tmp(name).toString())).append(" \"$0/tmp\"; ");
            for (Mount mount : mounts) {
                String target = root + mount.container();
                prepareMountPoint(mount.host(), Path.of(target));
                script.append("mount --bind ").append(quote(mount.host().toString())).append(' ').append(quote(target))
                        .append("; ");
                if (mount.readOnly()) {
                    script.append("mount -o remount,bind,ro ").append(quote(target)).append("; ");
                }
            }
            script.append("exec chroot --userspec=\"$1\" \"$0\" /usr/bin/env -i -C \"$2\" \"${@:3}\"");
            List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, "unshare", "--mount",
                    "--pid", "--fork", "--kill-child", "--mount-proc=" + root.resolve("proc"), "bash", "-c",
                    script.toString(), root.toString(), user, workingDirectory, "HOSTNAME=" + name));
            Map<String, String> variables = new LinkedHashMap<>(environment);
            variables.putAll(extra);
            variables.forEach((key, value) -> command.add(key + "=" + value));
            command.addAll(entrypoint);
            command.addAll(args.isEmpty() ? defaultArgs : args);   // as a container engine does with Cmd
            names.add(name);
            return NodeProcess.start(name, command, log);
        }

        private Path tmp(String name) {
            try {
                Path tmp = Files.createDirectories(work.resolve("tmp-" + name));
                run(List.of("chmod", "1777", tmp.toString()));
                return tmp;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static void prepareMountPoint(Path host, Path target) {
            try {
                if (Files.isDirectory(host)) {
                    Files.createDirectories(target);
                } else if (!Files.exists(target)) {
                    Files.createDirectories(requireNonNull(target.getParent(), "a mount point has a parent"));
                    Files.createFile(target);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot make the mount point " + target, e);
            }
        }

        private static String quote(String word) {
            return "'" + word.replace("'", "'\\''") + "'";
        }

        @Override
        void stop(String name, NodeProcess process) {
            // unshare's parent ignores SIGTERM; the entry point (which execs java) is its child, PID 1 inside
            List<ProcessHandle> java = process.handle().descendants()
                    .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false)).toList();
            if (java.size() != 1) {
                throw new IllegalStateException(name + ": expected one java process under unshare, found "
                        + java.size());
            }
            java.get(0).destroy();
        }

        @Override
        public void close() {
            // the processes are stopped by their NodeProcess; their mounts went with their mount namespaces
        }
    }
}
