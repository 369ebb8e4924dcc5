package io.neptune.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class as a partitioned Neptune service.
 *
 * <p>Every public method annotated with {@link Read} or {@link Write} becomes callable from any
 * node of the cluster. Each call runs on exactly one partition (ids {@code 0..partitions-1}).
 *
 * <pre>{@code
 * @NeptuneService(name = "echo", partitions = 16)
 * public final class EchoService {
 *     @Read
 *     public EchoReply echo(RequestContext context, EchoRequest request) { ... }
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface NeptuneService {
    /** The cluster-wide service name: letters, digits, {@code '-'}, {@code '_'} and {@code '.'}. */
    String name();

    /** The fixed number of partitions; at least 1. */
    int partitions();

    /** How replicas of one partition are kept consistent. */
    ConsistencyLevel consistency() default ConsistencyLevel.LEVEL_1;

    /**
     * Level 3 only: the soft staleness bound x in milliseconds. A read goes only to a replica whose
     * version is at least the primary's version x milliseconds earlier (DESIGN §6.4).
     */
    long stalenessMillis() default 1000;

    /**
     * Levels 2 and 3: what fail-over may assume ({@link FailoverMode}). {@link FailoverMode#MAJORITY}
     * survives network splits and paused processes; {@link FailoverMode#FAIL_STOP} keeps writing
     * with a single replica left but assumes neither happens. A node's config may override it per
     * hosted service ({@code failover:}); every replica of a partition must use the same mode.
     */
    FailoverMode failover() default FailoverMode.MAJORITY;
}
