/**
 * JMH benchmarks of Neptune against raw Netty floors. Build {@code benchmarks/target/benchmarks.jar}
 * with {@code mvn -pl benchmarks -am package -DskipTests -Dimage.skip} and run it with {@code java -jar}; the
 * figures and the exact commands are in {@code docs/PERFORMANCE.md}.
 *
 * <p>Starting points: {@link io.neptune.benchmarks.EchoRoundTripBenchmark}; the cluster experiment
 * {@link io.neptune.benchmarks.ReplicationExperiment}, whose nodes emulate server capacity.
 */
@NullMarked
package io.neptune.benchmarks;

import org.jspecify.annotations.NullMarked;
