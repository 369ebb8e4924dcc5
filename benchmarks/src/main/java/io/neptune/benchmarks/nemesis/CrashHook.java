package io.neptune.benchmarks.nemesis;

import io.neptune.server.crashfs.CrashFs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a machine crash does to a node's files, run by {@link NemesisCluster#crash} after the node's
 * process was killed with SIGKILL and before it restarts. A SIGKILL alone loses nothing the process
 * handed to the kernel: the page cache survives it. A power cut also loses every write not yet
 * fsynced; a faithful hook cuts each data file (REDO log segments, the H2 file) back to what its last
 * fsync made durable.
 *
 * <p>The bench uses {@link #crashFs()}; {@link #NONE} makes a crash a SIGKILL and restart, and the
 * fault log says so.
 */
@FunctionalInterface
interface CrashHook {
    /** Cuts nothing: a crash is then a process crash only. */
    CrashHook NONE = (node, dataDirectory) -> "no file-cut hook installed: unsynced data kept (a process crash)";

    /**
     * Applies the crash to the stopped node's files.
     *
     * @param node the node id
     * @param dataDirectory the node's data directory (REDO logs and service data beneath it)
     * @return what was cut, for the fault log
     * @throws IOException if the files cannot be changed
     */
    String afterKill(String node, Path dataDirectory) throws IOException;

    /** Environment variables a node whose data lives in {@code dataDirectory} runs with (none by default). */
    default Map<String, String> environment(Path dataDirectory) {
        return Map.of();
    }

    /**
     * The faithful hook, where the machine can build it: every node runs under the crashfs shim
     * ({@code io.neptune.server.crashfs.CrashFs}, docs/RELIABILITY.md "Machine crashes"), which
     * records what the last fsync of each file and directory made durable; after the SIGKILL the
     * node's data directory is rewound to exactly that. Without gcc, {@link #NONE}.
     */
    static CrashHook crashFs() {
        if (CrashFs.unavailableReason().isPresent()) {
            String why = CrashFs.unavailableReason().get();
            return (node, dataDirectory) -> "no file cut (" + why + "): unsynced data kept (a process crash)";
        }
        return new CrashHook() {
            @Override
            public String afterKill(String node, Path dataDirectory) {
                return "cut back to the last fsync: " + CrashFs.cut(dataDirectory);
            }

            @Override
            public Map<String, String> environment(Path dataDirectory) {
                return CrashFs.environment(dataDirectory);
            }
        };
    }
}
