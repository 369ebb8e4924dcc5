package io.neptune.examples.gateway.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The API requests the gateway answered over the last second, in total and per service
 * ({@code /api/<service>/...}).
 *
 * <p>Thread-safety: thread-safe; the map is fixed at construction and each rate is thread-safe.
 */
public final class GatewayMetrics {
    private final RequestRate total;
    private final Map<String, RequestRate> byService = new LinkedHashMap<>();

    /** Creates the counters for {@code services} over {@code nanoTime}. */
    public GatewayMetrics(List<String> services, LongSupplier nanoTime) {
        this.total = new RequestRate(nanoTime);
        services.forEach(service -> byService.put(service, new RequestRate(nanoTime)));
    }

    /** Counts one answered request whose path is {@code path}; only {@code /api/...} counts. */
    public void record(List<String> path) {
        if (path.size() < 2 || !path.get(0).equals("api")) {
            return;
        }
        total.record();
        RequestRate service = byService.get(path.get(1));
        if (service != null) {
            service.record();
        }
    }

    /** API requests answered over the last second. */
    public long perSecond() {
        return total.perSecond();
    }

    /** API requests answered over the last second, by service. */
    public Map<String, Long> perSecondByService() {
        Map<String, Long> rates = new LinkedHashMap<>();
        byService.forEach((service, rate) -> rates.put(service, rate.perSecond()));
        return rates;
    }
}
