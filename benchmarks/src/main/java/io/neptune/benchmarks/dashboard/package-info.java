/** {@code ./neptune bench dashboard}: the Grafana dashboard in docs/grafana drawn from a real Prometheus and a real demo run. */
@NullMarked
package io.neptune.benchmarks.dashboard;

import org.jspecify.annotations.NullMarked;
