package io.neptune.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the argument of a typed-proxy method that selects the partition.
 *
 * <p>The value is mapped with {@link Partitions#of(Object, int)}: integers modulo the partition
 * count (so an in-range {@code int} is the partition id itself), anything else by a stable hash.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface PartitionKey {}
