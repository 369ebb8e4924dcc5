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
}
