package io.neptune.core.internal.membership;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.View;
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
 * <p>Thread-safety: as {@link FILE_PING}; the writes of this member's file are serialised.
 */
public final class AtomicFilePing extends FILE_PING {
    /** This protocol's id in JGroups' registry (ids below 1024 are JGroups' own). */
    static final short ID = 1801;

    static {
        ClassConfigurator.addProtocol(ID, AtomicFilePing.class);
    }

    /**
     * Held for each write of this member's file. Writes come from several threads (a view change, the
     * info writer, a late discovery response, {@link #handleDiscoveryResponse}), and all of them go
     * through one {@code .tmp} name: unserialised, one thread renamed the file another was still
     * writing, and the other's rename then failed with NoSuchFileException (a CI run of
     * CertificateRotationIT, whose coordinator's file then lacked a member for 30 s).
     */
    private final Object writing = new Object();
    /** Writes of this member's file that failed. */
    private final AtomicInteger failedWrites = new AtomicInteger();

    @Override
    protected void write(List<PingData> list, String clustername) {
        synchronized (writing) {
            writeNow(list, clustername);
        }
    }

    /** Writes of this member's file that failed since it started (each is logged). */
    int failedWrites() {
        return failedWrites.get();
    }

    private void writeNow(List<PingData> list, String clustername) {
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
            failedWrites.incrementAndGet();
            log.error("%s: cannot write discovery file %s: %s", local_addr, destination, e);
            try {
                Files.deleteIfExists(temporary.toPath());
            } catch (IOException ignored) {
                // the next write replaces it
            }
        }
    }

    /**
     * On the coordinator, tells the members of a new view the addresses of those who joined (what
     * JGroups' {@code send_cache_on_join} does for static discovery only): a member learns a joiner's
     * address otherwise only from the joiner's own discovery response, sent once to the members of
     * the file it read, or from the coordinator's file at the next rewrite.
     */
    @Override
    public Object down(Event evt) {
        View old = view;
        Object result = super.down(evt);
        View current = view;
        if (evt.getType() == Event.VIEW_CHANGE && is_coord && current != null) {
            List<Address> joined = View.newMembers(old, current);
            if (!joined.isEmpty()) {
                startCacheDissemination(new ArrayList<>(current.getMembers()), View.leftMembers(old, current),
                        new ArrayList<>(joined));
            }
        }
        return result;
    }

    /**
     * When the coordinator learns the address of a member it already took in (its JOIN overtook its
     * discovery response, so the view went out while the coordinator could not name the address),
     * writes its file again and tells every member, instead of leaving them without it until the next
     * rewrite of the file (1-10 s) and their next read (their merge check, 1.5-4.5 s after a view
     * change); meanwhile each of them dropped every message for the joiner.
     */
    @Override
    protected void handleDiscoveryResponse(PingData data, Address sender) {
        Address member = data == null ? null : data.getAddress() != null ? data.getAddress() : sender;
        boolean unknown = member != null && data.getPhysicalAddr() != null
                && down_prot.down(new Event(Event.GET_PHYSICAL_ADDRESS, member)) == null;
        super.handleDiscoveryResponse(data, sender);
        View current = view;
        if (unknown && is_coord && current != null && current.containsMember(member)) {
            log.debug("%s: learned the address of %s after taking it in; telling the members", local_addr, member);
            writeAll();
            startCacheDissemination(new ArrayList<>(current.getMembers()), null, new ArrayList<>(List.of(member)));
        }
    }

    /** Writes this member's file again, as a view change does; for tests. */
    void rewrite() {
        writeAll();
    }
}
