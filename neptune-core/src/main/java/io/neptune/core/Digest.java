package io.neptune.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the optional digest callback: a hash of one partition's state, so replicas can be compared.
 *
 * <p>The method must be a public instance method with exactly this shape (the name is free):
 *
 * <pre>{@code
 * @Digest
 * public String digest(int partition) { ... }
 * }</pre>
 *
 * <p>Two replicas of a partition that applied the same writes must return equal digests, and
 * replicas with different data should not. The digest covers persistent state only (not caches or
 * counters), in a deterministic order; it is used by tests and operator tools, never on the request
 * path, so it may scan the partition. At most one per service; it runs on a worker thread.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Digest {}
