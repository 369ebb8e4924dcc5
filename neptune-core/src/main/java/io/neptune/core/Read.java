package io.neptune.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a service method that does not change persistent data; any replica may serve it.
 *
 * <p>The method must be public, take a {@link RequestContext} and one request object, and return a
 * response object (both mapped to JSON by Jackson).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Read {
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
     * For a method that returns a stream ({@code Flow.Publisher}) of a request object: whether the
     * stream may be continued on another replica when the one serving it fails. The method must
     * then publish the same items in the same order for the same request on every replica of the
     * partition (e.g. a scan in key order of data that the stream does not see change, or a
     * deterministic computation): the client opens it again elsewhere and that replica's node skips
     * the items the client already has. Not allowed on a method that takes the client's stream,
     * whose input cannot be sent twice, nor on a method that does not stream.
     */
    boolean resumable() default false;

    /**
     * Whether the method may block (wait on I/O, a lock, a sleep). {@code false} promises it never
     * does and returns quickly: a remote call then runs it on the I/O thread that read the request
     * and writes the answer there, without the hand-off to a service worker and back (the fastest
     * path, for methods that compute from memory). A method that blocks anyway stalls every
     * connection of that I/O thread, so only promise it when it is true. Not for stream methods; on
     * a node that schedules by service class every method still goes through the class-aware queue.
     */
    boolean blocking() default true;

    /**
     * Whether the method may make blocking inner calls ({@link ServiceCalls#call}) to its own service.
     * Such a call waits on a worker for another request of the same service; when every worker waits
     * like that, none is left to serve them and the service deadlocks. So it is refused (an
     * {@link IllegalStateException} naming the method) unless the method declares it here, having made
     * sure it cannot happen (e.g. more workers than such calls can nest). Asynchronous inner calls
     * ({@link ServiceCalls#callAsync}) are always allowed.
     */
    boolean reentrant() default false;
}
