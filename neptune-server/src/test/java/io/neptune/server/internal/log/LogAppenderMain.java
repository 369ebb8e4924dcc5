package io.neptune.server.internal.log;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;

/**
 * A child process for {@link RedoLogKillIT}: appends {@link TestRecords} of random sizes to the log
 * in {@code args[0]} with the fsync policy {@code args[1]} until it is killed, keeping a few appends
 * in flight so group commit has something to group, and prints {@code APPENDED <lsn>} once each
 * append's future has completed (the record is acknowledged). It exits by itself when stdin closes
 * (the test JVM died) or after {@link #MAX_RECORDS} records, so it can never outlive its test by much.
 */
final class LogAppenderMain {
    static final int MAX_PAYLOAD = 4096;
    private static final int MAX_RECORDS = 200_000;
    private static final int IN_FLIGHT = 32;

    private LogAppenderMain() {}

    public static void main(String[] args) throws InterruptedException {
        Path directory = Path.of(args[0]);
        FsyncPolicy policy = FsyncPolicy.ofConfigName(args[1]);
        Thread watchdog = new Thread(LogAppenderMain::exitWhenStdinCloses, "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        try (RedoLog log = RedoLog.open(directory, policy)) {
            for (long lsn = log.lastLsn() + 1; lsn <= MAX_RECORDS; lsn++) {
                inFlight.acquire();
                long acknowledged = lsn;
                log.append(TestRecords.record(lsn, 1, MAX_PAYLOAD)).whenComplete((ignored, failure) -> {
                    System.out.println(failure == null ? "APPENDED " + acknowledged : "FAILED " + failure);
                    inFlight.release();
                });
            }
        }
    }

    private static void exitWhenStdinCloses() {
        try (InputStream in = System.in) {
            while (in.read() >= 0) {
                // nothing is sent; wait for end of stream
            }
        } catch (IOException e) {
            // same as end of stream
        }
        Runtime.getRuntime().halt(3);
    }
}
