package io.neptune.core;

/** Thrown when a service has no method of this name, or the method's access mode differs. */
public final class UnknownMethodException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String service;
    private final String method;

    /** Creates the exception for {@code service.method}. */
    public UnknownMethodException(String service, String method, String detail) {
        super("unknown method '" + method + "' of service '" + service + "' (" + detail + ")");
        this.service = service;
        this.method = method;
    }

    /** The service that was called. */
    public String service() {
        return service;
    }

    /** The method name that was asked for. */
    public String method() {
        return method;
    }
}
