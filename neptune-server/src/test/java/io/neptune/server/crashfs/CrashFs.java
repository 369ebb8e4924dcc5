package io.neptune.server.crashfs;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A simulated machine crash for one directory tree: processes started with {@link #environment}
 * run under an {@code LD_PRELOAD} shim ({@code crashfs.c}, compiled with gcc on first use) that
 * journals, before each change under the tree, what a power cut would take back; after the
 * process is dead (SIGKILL), {@link #cut} rewinds the tree to exactly what the last {@code fsync}s
 * made durable.
 *
 * <p>The model, the pessimistic outcome POSIX allows and that Jepsen's LazyFS also produces:
 * <ul>
 *   <li>a file's content is its content at its last {@code fsync}/{@code fdatasync} (by any
 *       descriptor): bytes written since are lost, bytes overwritten since come back, a
 *       truncation since is undone; a file never synced is empty;</li>
 *   <li>a directory's entries are its entries at its last {@code fsync}: files created, removed
 *       or renamed since are uncreated, restored or moved back (a new file whose directory was
 *       never synced disappears);</li>
 *   <li>unsynced state outlives process restarts until it is synced or cut, as dirty pages do.</li>
 * </ul>
 * Not modelled: torn or partially written pages, unsynced data that happened to reach the disk
 * (a real crash may keep some of it, in any order), renamed directories, hard links as
 * durability, {@code sync()}/{@code syncfs()} and writable shared {@code mmap}s (the last three
 * mark the state tainted and {@link #cut} refuses it). Writes through {@code O_SYNC}/{@code O_DSYNC}
 * descriptors count as a write plus an {@code fsync} of the file.
 *
 * <p>Only one live process may use a tree at a time (the shim holds a lock; a second process runs
 * untracked). The state lives next to the tree, in {@code <root>.crashfs}.
 *
 * <p>Thread-safety: thread-safe; {@link #cut} must not run while a process uses the tree.
 */
public final class CrashFs {
    private static final String SOURCE = "crashfs.c";
    private static final long COMPILE_TIMEOUT_SECONDS = 120;
    private static final Object BUILD_LOCK = new Object();

    private CrashFs() {}

    /**
     * Why the shim cannot run here (not Linux, or no {@code gcc}), or empty if it can. Tests skip
     * with this message.
     */
    public static Optional<String> unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.of("crashfs needs Linux (LD_PRELOAD and /proc/self/fd); this is "
                    + System.getProperty("os.name"));
        }
        if (findOnPath("gcc").isEmpty()) {
            return Optional.of("crashfs needs gcc on the PATH to build its LD_PRELOAD shim");
        }
        return Optional.empty();
    }

    /**
     * The environment variables that put a process under the shim for {@code root}: {@code LD_PRELOAD}
     * (prepended to the caller's own, if any), {@code CRASHFS_ROOT} and {@code CRASHFS_STATE}.
     * Creates {@code root} and its state directory, and builds the shim on first use.
     *
     * @throws IllegalStateException if the shim cannot be built (see {@link #unavailableReason})
     */
    public static Map<String, String> environment(Path root) {
        requireNonNull(root, "root");
        Path library = library();
        Path absolute = root.toAbsolutePath().normalize();
        try {
            Files.createDirectories(absolute);
            Files.createDirectories(stateOf(absolute));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + absolute + " and its crashfs state", e);
        }
        String preload = System.getenv("LD_PRELOAD");
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("LD_PRELOAD", library + (preload == null || preload.isBlank() ? "" : " " + preload));
        environment.put("CRASHFS_ROOT", absolute.toString());
        environment.put("CRASHFS_STATE", stateOf(absolute).toString());
        return environment;
    }

    /**
     * Rewinds {@code root} to its last-synced image, as a machine crash would leave it, and clears
     * the journals so the next process starts from a durable tree. Call it after every process
     * under the shim for {@code root} has died; does nothing if the shim never ran there.
     *
     * @return what was rewound
     * @throws IllegalStateException if a process still uses the tree, or the shim saw a call it does
     *     not model (the journals are then kept for inspection)
     * @throws UncheckedIOException if the tree or the journals cannot be read or written
     */
    public static Cut cut(Path root) {
        requireNonNull(root, "root");
        Path absolute = root.toAbsolutePath().normalize();
        Path state = stateOf(absolute);
        if (!Files.isDirectory(state)) {
            return new Cut(0, 0, 0);
        }
        try (FileChannel lockFile = FileChannel.open(state.resolve("lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockFile.tryLock()) {
            if (lock == null) {
                throw new IllegalStateException("crashfs: a process still uses " + absolute
                        + " (expected: it was killed before the cut)");
            }
            Path tainted = state.resolve("TAINTED");
            if (Files.exists(tainted)) {
                throw new IllegalStateException("crashfs: the process under " + absolute
                        + " made calls the model does not cover (expected: none): "
                        + Files.readString(tainted).strip());
            }
            return new Rewind(absolute, state).run();
        } catch (IOException e) {
            throw new UncheckedIOException("crashfs: cannot cut " + absolute + " back to its last fsync", e);
        }
    }

    /**
     * Declares everything written under {@code root} so far durable, as if the OS had written all
     * its dirty data back (a clean shutdown followed by {@code sync}): clears the journals without
     * rewinding anything. Call it after every process under the shim for {@code root} has exited.
     *
     * @throws IllegalStateException if a process still uses the tree
     * @throws UncheckedIOException if the journals cannot be removed
     */
    public static void writeBack(Path root) {
        requireNonNull(root, "root");
        Path absolute = root.toAbsolutePath().normalize();
        Path state = stateOf(absolute);
        if (!Files.isDirectory(state)) {
            return;
        }
        try (FileChannel lockFile = FileChannel.open(state.resolve("lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockFile.tryLock()) {
            if (lock == null) {
                throw new IllegalStateException("crashfs: a process still uses " + absolute
                        + " (expected: it exited before the write-back)");
            }
            new Rewind(absolute, state).forget();
        } catch (IOException e) {
            throw new UncheckedIOException("crashfs: cannot write " + absolute + " back", e);
        }
    }

    /**
     * What a {@link #cut} rewound.
     *
     * @param files files whose content went back to their last fsync
     * @param bytesRestored old bytes written back over changes made since
     * @param entries directory entries created, removed or renamed since their directory's last
     *     fsync, and undone
     */
    public record Cut(int files, long bytesRestored, int entries) {
        @Override
        public String toString() {
            return "crashfs cut: " + files + " files rewound (" + bytesRestored + " bytes restored), " + entries
                    + " directory entries undone";
        }
    }

    /** The state directory of {@code root}: {@code <root>.crashfs}, a sibling on the same file system. */
    static Path stateOf(Path root) {
        Path name = root.getFileName();
        if (name == null) {
            throw new IllegalArgumentException("root: " + root + " (expected: a directory below /)");
        }
        return root.resolveSibling(name + ".crashfs");
    }

    /** The compiled shim, built into the temporary directory once per version of its source. */
    static Path library() {
        Optional<String> unavailable = unavailableReason();
        if (unavailable.isPresent()) {
            throw new IllegalStateException(unavailable.get());
        }
        byte[] source = source();
        Path directory = Path.of(System.getProperty("java.io.tmpdir"), "neptune-crashfs-"
                + HexFormat.of().formatHex(sha256(source), 0, 8));
        Path library = directory.resolve("libcrashfs.so");
        synchronized (BUILD_LOCK) {
            if (Files.isRegularFile(library)) {
                return library;
            }
            try {
                Files.createDirectories(directory);
                Path file = directory.resolve(SOURCE);
                Files.write(file, source);
                Path building = Files.createTempFile(directory, "libcrashfs", ".so");
                compile(file, building);
                Files.move(building, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return library;
            } catch (IOException e) {
                throw new UncheckedIOException("crashfs: cannot build the shim in " + directory, e);
            }
        }
    }

    private static void compile(Path source, Path output) throws IOException {
        List<String> command = new ArrayList<>(List.of("gcc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror",
                "-U_FORTIFY_SOURCE", "-o", output.toString(), source.toString(), "-ldl", "-lpthread"));
        Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] messages = gcc.getInputStream().readAllBytes();
            if (!gcc.waitFor(COMPILE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                gcc.destroyForcibly();
                throw new IllegalStateException("crashfs: gcc ran for more than " + COMPILE_TIMEOUT_SECONDS + " s");
            }
            if (gcc.exitValue() != 0) {
                throw new IllegalStateException("crashfs: " + String.join(" ", command) + " failed:\n"
                        + new String(messages, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            gcc.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("crashfs: interrupted while compiling the shim", e);
        }
    }

    private static byte[] source() {
        try (InputStream in = CrashFs.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IllegalStateException("crashfs: " + SOURCE + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM (expected: every JVM has it)", e);
        }
    }

    private static Optional<Path> findOnPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String entry : path.split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty()) {
                Path candidate = Path.of(entry, program);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
