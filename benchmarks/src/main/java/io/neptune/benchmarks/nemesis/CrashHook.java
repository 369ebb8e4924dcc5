package io.neptune.benchmarks.nemesis;

import java.io.IOException;
import java.nio.file.Path;

/**
 * What a machine crash does to a node's files, run by {@link NemesisCluster#crash} after the node's
 * process was killed with SIGKILL and before it restarts. A SIGKILL alone loses nothing the process
 * handed to the kernel: the page cache survives it. A power cut also loses every write not yet
 * fsynced; a faithful hook cuts each data file (REDO log segments, the H2 file) back to what its last
 * fsync made durable.
 *
 * <p>INTEGRATION: the file-cutting tool (data files back to their last fsync after a SIGKILL) is
 * built separately; plug it in as the bench's hook in {@link NemesisBench#crashHook()}. Until then
 * {@link #NONE} makes a crash a SIGKILL and restart, and the fault log says so.
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
}
