package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Maps a method and a path such as {@code /api/discussion/{topic}/headers} to an {@link Endpoint}.
 * A {@code {placeholder}} matches one non-empty path segment. A path that matches with another
 * method is answered 405 with {@code Allow}; no match is 404.
 *
 * <p>Thread-safety: build it on one thread, then share it read-only.
 */
public final class Router {
    private record Route(String method, List<String> pattern, Endpoint endpoint) {
        @Nullable List<String> match(List<String> path) {
            if (path.size() != pattern.size()) {
                return null;
            }
            List<String> parameters = new ArrayList<>();
            for (int i = 0; i < path.size(); i++) {
                String expected = pattern.get(i);
                String actual = path.get(i);
                if (expected.startsWith("{")) {
                    if (actual.isEmpty()) {
                        return null;
                    }
                    parameters.add(actual);
                } else if (!expected.equals(actual)) {
                    return null;
                }
            }
            return parameters;
        }
    }

    private final List<Route> routes = new ArrayList<>();

    /** Adds a route; {@code pattern} starts with {@code /}. */
    public Router add(String method, String pattern, Endpoint endpoint) {
        requireNonNull(method, "method");
        requireNonNull(endpoint, "endpoint");
        if (!pattern.startsWith("/")) {
            throw new IllegalArgumentException("pattern: '" + pattern + "' (expected: starting with /)");
        }
        routes.add(new Route(method, segments(pattern), endpoint));
        return this;
    }

    /** The segments of a raw path, not decoded: {@code /} is empty, {@code /a/b} is {@code [a, b]}. */
    public static List<String> segments(String rawPath) {
        String trimmed = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
        return trimmed.isEmpty() ? List.of() : List.of(trimmed.split("/", -1));
    }

    /** Serves {@code request} with the matching route; never throws. */
    public CompletableFuture<GatewayResponse> route(GatewayRequest request) {
        Set<String> allowed = new TreeSet<>();
        for (Route route : routes) {
            List<String> parameters = route.match(request.path());
            if (parameters == null) {
                continue;
            }
            if (route.method().equals(request.method())) {
                try {
                    return route.endpoint().serve(request, parameters);
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
            allowed.add(route.method());
        }
        if (!allowed.isEmpty()) {
            return CompletableFuture.completedFuture(GatewayResponse.error(405, "method: " + request.method()
                    + " (expected: " + String.join(" or ", allowed) + ")").withHeader("Allow", String.join(", ", allowed)));
        }
        return CompletableFuture.completedFuture(GatewayResponse.error(404, "no such resource: " + request));
    }
}
