package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneException;
import java.nio.file.Path;

/**
 * A {@link RedoLog} could not read or write its files, or found them in a state it must not repair
 * on its own (an unknown format version, a corrupt meta file). After an I/O failure the log refuses
 * further changes; close it and open it again to recover what is on disk.
 */
public final class LogException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final transient Path directory;

    /** Creates an exception about the log in {@code directory}. */
    public LogException(Path directory, String message) {
        super(directory + ": " + message);
        this.directory = requireNonNull(directory, "directory");
    }

    /** Creates an exception about the log in {@code directory}, caused by {@code cause}. */
    public LogException(Path directory, String message, Throwable cause) {
        super(directory + ": " + message, cause);
        this.directory = requireNonNull(directory, "directory");
    }

    /** The directory of the log. */
    public Path directory() {
        return directory;
    }
}
