package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.Map;
import org.jgroups.JChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The loopback stack's discovery directory (issue 23, membership): whoever can write in it can tell
 * the nodes where members are, so the stack creates it owner-only and refuses one that others can
 * write in. The stacks are built, not connected. The owner checks need another user to own a file,
 * which only root can arrange: they are skipped when the tests do not run as root.
 */
class DiscoveryDirectoryTest {
    @TempDir
    Path root;

    @Test
    void aMissingDirectoryIsCreatedOwnerOnly() throws Exception {
        Path directory = root.resolve("data/discovery");

        build(directory);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory))).isEqualTo("rwx------");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rwxrwxrwx", "rwxrwx---", "rwx---rwx", "rwxr-x-w-"})
    void anExistingDirectoryThatOthersCanWriteInIsRefused(String permissions) throws Exception {
        Path directory = Files.createDirectory(root.resolve("discovery"));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString(permissions));
        String self = Files.getOwner(directory).getName();

        assertThatThrownBy(() -> build(directory)).isInstanceOf(ConfigException.class)
                .hasMessage("membership.discovery-directory: " + directory + " owned by " + self + " with permissions "
                        + permissions + " (expected: owned by " + self + ", the user this node runs as, and no"
                        + " write permission for group or others, such as rwx------: chown and chmod it, or choose"
                        + " another directory)");
    }

    @Test
    void anExistingDirectoryOfThisUserThatOnlyItCanWriteInIsKeptAsItIs() throws Exception {
        Path directory = Files.createDirectory(root.resolve("discovery"));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));

        build(directory);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory))).isEqualTo("rwxr-xr-x");
        try (var files = Files.list(directory)) {
            assertThat(files.toList()).as("the owner probe is gone").isEmpty();
        }
    }

    @Test
    void aDirectoryOfAnotherUserIsRefused() throws Exception {
        UserPrincipal other = anotherUser();
        Path directory = Files.createDirectory(root.resolve("discovery"));
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
        Files.setOwner(directory, other);

        assertThatThrownBy(() -> build(directory)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("membership.discovery-directory: " + directory + " owned by " + other.getName()
                        + " with permissions rwx------ (expected: owned by " + Files.getOwner(root).getName() + ",");
    }

    @Test
    void aSymbolicLinkOfAnotherUserIsRefusedEvenToADirectoryOfThisUser() throws Exception {
        UserPrincipal other = anotherUser();
        Path target = Files.createDirectory(root.resolve("target"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
        Path link = Files.createSymbolicLink(root.resolve("discovery"), target);
        Files.getFileAttributeView(link, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setOwner(other);

        assertThatThrownBy(() -> build(link)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("membership.discovery-directory: " + link + " (a symbolic link owned by "
                        + other.getName() + ") owned by " + Files.getOwner(root).getName()
                        + " with permissions rwx------ (expected: owned by " + Files.getOwner(root).getName()
                        + ", the user this node runs as, the link too,");
    }

    @Test
    void onAFileSystemWithoutPosixPermissionsTheDirectoryIsCreatedUnchecked() throws Exception {
        try (FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + root.resolve("fs.zip").toUri()),
                Map.of("create", "true"))) {
            Path directory = zip.getPath("/data/discovery");

            DiscoveryDirectory.prepare(directory, "zip-test");

            assertThat(Files.isDirectory(directory)).isTrue();
        }
    }

    private static void build(Path directory) throws Exception {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(directory).cluster("discovery-test").build();
        try (JChannel channel = JGroupsStacks.create(config)) {
            AtomicFilePing ping = channel.getProtocolStack().findProtocol(AtomicFilePing.class);
            assertThat(ping).as("the loopback stack's discovery").isNotNull();
        }
    }

    /** A user other than this one, to own a file: only root can give one away. */
    private UserPrincipal anotherUser() throws IOException {
        assumeTrue(Files.getOwner(root).getName().equals("root"), "needs root to give a file to another user");
        try {
            return root.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        } catch (UserPrincipalNotFoundException e) {
            assumeTrue(false, "no user 'nobody' to give a file to");
            throw e;
        }
    }
}
