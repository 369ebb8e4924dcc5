package io.neptune.core;

/** Thrown when no node in the cluster hosts a service of this name. */
public final class UnknownServiceException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String service;

    /** Creates the exception for {@code service}. */
    public UnknownServiceException(String service, String detail) {
        super("unknown service '" + service + "' (" + detail + ")");
        this.service = service;
    }

    /** The service name that was asked for. */
    public String service() {
        return service;
    }
}
