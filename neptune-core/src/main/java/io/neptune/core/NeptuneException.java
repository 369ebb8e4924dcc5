package io.neptune.core;

import org.jspecify.annotations.Nullable;

/**
 * The root of every exception Neptune raises. Unchecked; subtypes carry the data a caller needs
 * to recover (which service, partition or node was involved).
 */
public class NeptuneException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception with a message. */
    public NeptuneException(String message) {
        super(message);
    }

    /** Creates an exception with a message and a cause, if there is one. */
    public NeptuneException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
