package io.neptune.server.internal.log;

import java.nio.file.Path;

/**
 * A child process for {@link RedoLogMachineCrashIT}: opens the log in {@code args[0]} with the fsync
 * policy {@code args[1]}, prints {@code OPENED <last LSN>}, the LSN up to which a restarted replica
 * would now report its log durable, and halts without closing the log, as a killed process would.
 */
final class LogReopenMain {
    private LogReopenMain() {}

    public static void main(String[] args) {
        RedoLog log = RedoLog.open(Path.of(args[0]), FsyncPolicy.ofConfigName(args[1]));
        System.out.println("OPENED " + log.lastLsn());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
