package io.neptune.core;

/** Thrown when an annotated service class cannot be registered; the message names class and method. */
public final class ServiceDefinitionException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String serviceClass;

    /** Creates the exception for {@code serviceClass}. */
    public ServiceDefinitionException(Class<?> serviceClass, String problem) {
        super(serviceClass.getName() + ": " + problem);
        this.serviceClass = serviceClass.getName();
    }

    /** The fully qualified name of the rejected class. */
    public String serviceClass() {
        return serviceClass;
    }
}
