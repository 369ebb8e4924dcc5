package io.neptune.server.internal.security;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** A certificate or key file cannot be read, written or used; {@link #file()} names it. */
public final class CertificateFileException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;

    /** Creates the exception for {@code file}; the message starts with the file. */
    public CertificateFileException(Path file, String problem, @Nullable Throwable cause) {
        super(requireNonNull(file, "file") + ": " + problem, cause);
        this.file = file;
    }

    /** The file that could not be read, written or used. */
    public Path file() {
        return file;
    }
}
