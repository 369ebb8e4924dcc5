/**
 * What a node's log lines carry and how they are written: {@link RequestMdc}, the MDC keys set
 * while a request is served (node, service, partition, request id, trace id), and the Logback
 * encoder of the distribution and the demo ({@link NodeLogEncoder}: text or JSON lines,
 * docs/OPERATIONS.md, Logs). No compatibility promise.
 */
@NullMarked
package io.neptune.server.internal.logging;

import org.jspecify.annotations.NullMarked;
