package io.neptune.core.internal.membership;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.FILE_PING;
import org.jgroups.protocols.PingData;

/**
 * JGroups' {@link FILE_PING} (the loopback stack's discovery through a shared directory) with each
 * member's file replaced atomically: written to a sibling {@code .tmp} file, then renamed over it.
 *
 * <p>{@code FILE_PING} truncates a coordinator's file and writes it again at every view change and
 * from its info writer. A node that joins meanwhile reads an empty or cut file ("failed reading
 * ....list"), takes it for no cluster at all, and starts a cluster of its own: in a CI run node-3 of
 * an IT did so, and as that cluster's coordinator deleted the others' files, it stayed alone past the
 * test's minute. With the rename a reader sees the old file or the new one, never a part of one. The
 * {@code .tmp} name does not end in {@code .list}, so readers never list it.
 *
 * <p>Thread-safety: as {@link FILE_PING}.
 */
public final class AtomicFilePing extends FILE_PING {
    /** This protocol's id in JGroups' registry (ids below 1024 are JGroups' own). */
    static final short ID = 1801;

    static {
        ClassConfigurator.addProtocol(ID, AtomicFilePing.class);
    }

    @Override
    protected void write(List<PingData> list, String clustername) {
        File dir = new File(root_dir, clustername);
        if (!dir.exists() && !dir.mkdir() && !dir.isDirectory()) {
            log.error("%s: cannot create discovery directory %s", local_addr, dir);
            return;
        }
        File destination = new File(dir, addressToFilename(local_addr));
        File temporary = new File(dir, destination.getName() + ".tmp");
        try {
            write(list, new FileOutputStream(temporary));   // closes the stream
            Files.move(temporary.toPath(), destination.toPath(), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (Exception e) {
            log.error("%s: cannot write discovery file %s: %s", local_addr, destination, e);
            try {
                Files.deleteIfExists(temporary.toPath());
            } catch (IOException ignored) {
                // the next write replaces it
            }
        }
    }

    /** Writes this member's file again, as a view change does; for tests. */
    void rewrite() {
        writeAll();
    }
}
