package io.neptune.examples.gateway.internal;

import io.neptune.core.NeptuneException;

/** A failure the gateway answers with a specific HTTP status and {@code {"error": message}}. */
public final class HttpStatusException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final int status;

    /** Creates the exception for HTTP {@code status}. */
    public HttpStatusException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** 400 Bad Request: the input is invalid; nothing was changed. */
    public static HttpStatusException badRequest(String message) {
        return new HttpStatusException(400, message);
    }

    /** 404 Not Found. */
    public static HttpStatusException notFound(String message) {
        return new HttpStatusException(404, message);
    }

    /** The HTTP status to answer with. */
    public int status() {
        return status;
    }
}
