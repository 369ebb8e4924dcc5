/**
 * Process-backed services: a service whose method runs an existing program, unmodified, as a
 * separate OS process (the dissertation's BLAST deployment, chapter 2). The program is declared in
 * the node's config; its partitions, replicas, workers, scheduling and load index are those of any
 * other service.
 *
 * <p>Starting points: {@link io.neptune.server.process.ProcessConfig} (what to run, declared in a
 * node's YAML as a {@code services} entry with {@code process:}),
 * {@link io.neptune.server.NeptuneNode.Builder#hostProcess}, and the call's
 * {@link io.neptune.server.process.ProcessRequest} and {@link io.neptune.server.process.ProcessResponse};
 * a failed run is a {@link io.neptune.server.process.ProcessFailedException}. The process model
 * (framing, kill semantics, accounting) is in {@code docs/ARCHITECTURE.md}.
 */
@NullMarked
package io.neptune.server.process;

import org.jspecify.annotations.NullMarked;
