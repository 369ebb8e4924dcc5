package io.neptune.core;

/** Thrown when a replica could not decode the request or a frame was malformed; nothing ran. */
public final class InvalidRequestException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message naming what was wrong. */
    public InvalidRequestException(String message) {
        super(message);
    }
}
