/** The demo: a local multi-process cluster and a closed-loop workload with progress output. */
@NullMarked
package io.neptune.examples.demo;

import org.jspecify.annotations.NullMarked;
