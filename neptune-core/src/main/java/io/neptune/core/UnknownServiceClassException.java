package io.neptune.core;

/**
 * Thrown when a call names a service class that the node it reached does not declare; the method
 * did not run. Service classes are declared in each node's config ({@code classes:}); a request
 * that names none belongs to {@value ServiceClass#DEFAULT_NAME}.
 */
public final class UnknownServiceClassException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String serviceClass;

    /** Creates the exception for {@code serviceClass}. */
    public UnknownServiceClassException(String serviceClass, String detail) {
        super("unknown service class '" + serviceClass + "' (" + detail + ")");
        this.serviceClass = serviceClass;
    }

    /** The class name the call gave. */
    public String serviceClass() {
        return serviceClass;
    }
}
