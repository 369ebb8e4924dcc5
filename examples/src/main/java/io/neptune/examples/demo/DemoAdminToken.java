package io.neptune.examples.demo;

import io.neptune.core.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The demo gateway's admin token (docs/SECURITY.md, "Gateway"): the one given with
 * {@code --admin-token}, else the one kept in the data directory, else a new random one written
 * there, readable by its owner only, and kept with the data like the demo's certificates.
 *
 * @param token the token
 * @param file where it is kept, or null when it was given on the command line
 */
record DemoAdminToken(String token, @Nullable Path file) {
    /** The file in the data directory. */
    static final String FILE = "gateway-admin-token";

    private static final SecureRandom RANDOM = new SecureRandom();

    /** The token given, or the one in {@code data}'s {@value #FILE}, made first if there is none. */
    static DemoAdminToken open(@Nullable String given, Path data) {
        if (given != null) {
            return new DemoAdminToken(given, null);
        }
        Path file = data.resolve(FILE).toAbsolutePath();
        try {
            if (Files.exists(file)) {
                return new DemoAdminToken(Files.readString(file, StandardCharsets.UTF_8).strip(), file);
            }
            byte[] secret = new byte[32];
            RANDOM.nextBytes(secret);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
            Files.createDirectories(data);
            Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly));
            } catch (UnsupportedOperationException e) {
                Files.createFile(file); // not a POSIX file system: the directory's protection applies
            }
            Files.writeString(file, token + "\n", StandardCharsets.UTF_8);
            return new DemoAdminToken(token, file);
        } catch (FileAlreadyExistsException e) {
            return open(null, data); // another demo made it meanwhile
        } catch (IOException e) {
            throw new ConfigException("--admin-token", "none given and '" + file + "' cannot be read or made ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    @Override
    public String toString() {
        return "DemoAdminToken[" + (file == null ? "--admin-token" : file) + "]";
    }
}
