package io.neptune.core.internal.membership;

import io.neptune.core.ConfigException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares the loopback stack's discovery directory (issue 23, membership). Whoever can write in it
 * can put discovery files there and so tell the nodes where the cluster's members are; it must be
 * the node's user's alone. A missing directory is created {@code rwx------} in one step (no moment
 * with wider permissions); an existing one must belong to the user the node runs as, not be writable
 * by group or others, and, if it is a symbolic link, the link must belong to that user too (whoever
 * owns a link can point it elsewhere later). Otherwise the node refuses to start, naming
 * {@value #KEY}. On a file system without POSIX permissions (Windows) the directory is created with
 * its defaults, unchecked, and a line says so.
 *
 * <p>Thread-safety: stateless; several nodes of one process or machine may prepare one directory at
 * once.
 */
final class DiscoveryDirectory {
    /** The setting that names the directory. */
    static final String KEY = "membership.discovery-directory";

    private static final Logger logger = LoggerFactory.getLogger(DiscoveryDirectory.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private DiscoveryDirectory() {}

    /**
     * Creates {@code directory} for cluster {@code cluster} if it is missing, and checks it.
     *
     * @throws ConfigException if it cannot be created, is not this user's, or others can write in it
     */
    static void prepare(Path directory, String cluster) {
        try {
            if (!directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.createDirectories(directory);
                logger.warn("{}: {} {} is on a file system without POSIX permissions: not checked; make sure"
                        + " that only the user running the nodes can write in it", cluster, KEY, directory);
                return;
            }
            if (Files.notExists(directory, LinkOption.NOFOLLOW_LINKS)) {
                create(directory);
            }
            check(directory);
        } catch (IOException e) {
            throw new ConfigException(KEY, directory + ": cannot create or check it: " + e);
        }
    }

    /** Creates the missing parents with their defaults, then the directory itself owner-only. */
    private static void create(Path directory) throws IOException {
        Path parent = directory.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException e) {
            // another node of this machine created it meanwhile: checked as any existing directory
        }
    }

    private static void check(Path directory) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(directory, PosixFileAttributes.class);
        if (!attributes.isDirectory()) {
            throw new ConfigException(KEY, directory + " is not a directory (expected: a directory)");
        }
        UserPrincipal self = currentUser(directory, attributes);
        boolean isLink = Files.isSymbolicLink(directory);
        UserPrincipal linkOwner = isLink ? Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS) : self;
        Set<PosixFilePermission> permissions = attributes.permissions();
        boolean othersWrite = permissions.contains(PosixFilePermission.GROUP_WRITE)
                || permissions.contains(PosixFilePermission.OTHERS_WRITE);
        if (othersWrite || !attributes.owner().equals(self) || !linkOwner.equals(self)) {
            String link = isLink ? " (a symbolic link owned by " + linkOwner.getName() + ")" : "";
            throw new ConfigException(KEY, directory + link + " owned by " + attributes.owner().getName()
                    + " with permissions " + PosixFilePermissions.toString(permissions) + " (expected: owned by "
                    + self.getName() + ", the user this node runs as" + (isLink ? ", the link too" : "")
                    + ", and no write permission for group or others, such as rwx------: chown and chmod it, or"
                    + " choose another directory)");
        }
    }

    /**
     * The user this process runs as: the owner of a file it creates in {@code directory} (which also
     * proves it can write there). No lookup by name, which fails for a user without a passwd entry (a
     * container run with an arbitrary uid).
     */
    private static UserPrincipal currentUser(Path directory, PosixFileAttributes attributes) throws IOException {
        Path probe;
        try {
            // the .tmp suffix: discovery readers skip it, as they skip AtomicFilePing's files being written
            probe = Files.createTempFile(directory, ".owner-probe-", ".tmp");
        } catch (AccessDeniedException e) {
            throw new ConfigException(KEY, directory + " owned by " + attributes.owner().getName()
                    + " with permissions " + PosixFilePermissions.toString(attributes.permissions())
                    + " (expected: owned by the user this node runs as, who can write in it)");
        }
        try {
            return Files.getOwner(probe, LinkOption.NOFOLLOW_LINKS);
        } finally {
            Files.deleteIfExists(probe);
        }
    }
}
