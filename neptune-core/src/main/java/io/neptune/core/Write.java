package io.neptune.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a service method that changes persistent data of its partition.
 *
 * <p>The method must be public, take a {@link RequestContext} and one request object, and return a
 * response object (both mapped to JSON by Jackson).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Write {
    /** The method name clients use; defaults to the Java method name. */
    String name() default "";

    /**
     * The roles of the callers that may call the method, by the certificate they connect with
     * ({@link Principal.Role}; docs/SECURITY.md); empty (the default): any caller. Checked before the
     * method runs; a caller without one of them gets a {@link PermissionDeniedException}. On a node
     * without TLS every caller is trusted, and passes.
     */
    Principal.Role[] roles() default {};

    /**
     * Whether the method may make blocking inner calls ({@link ServiceCalls#call}) to its own service;
     * see {@link Read#reentrant()}.
     */
    boolean reentrant() default false;
}
