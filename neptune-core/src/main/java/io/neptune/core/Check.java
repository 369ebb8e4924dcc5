package io.neptune.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the CHECK callback: the method that answers "was the write with this LSN applied on this
 * partition?" (DESIGN §6.5).
 *
 * <p>The method must be a public instance method with exactly this shape (the name is free):
 *
 * <pre>{@code
 * @Check
 * public boolean check(int partition, long lsn) { ... }
 * }</pre>
 *
 * <p>Required for services with {@link ConsistencyLevel#LEVEL_2} or {@link ConsistencyLevel#LEVEL_3},
 * optional at level 1; at most one per service. Without it, recovery after a crash trusts the log's
 * committed mark, which is saved lazily (within 50 ms), and runs the writes logged after it again:
 * a level-1 service without CHECK must have idempotent writes. The replication engine calls it while recovering a
 * partition, for each write it logged but may not have executed: a write CHECK reports as not
 * applied is executed again. The answer must therefore come from a record the write itself made
 * atomically with its data, such as a row in the same database transaction (see
 * {@code io.neptune.server.storage.PartitionDatabase} for a ready-made one). {@code lsn} is at
 * least 1; the method runs on a worker thread and may block on storage.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Check {}
