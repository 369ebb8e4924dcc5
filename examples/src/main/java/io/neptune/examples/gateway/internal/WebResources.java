package io.neptune.examples.gateway.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The web UI: {@code index.html}, {@code app.js} and {@code style.css}, read once from the
 * classpath ({@code io/neptune/examples/gateway/web/}) and served from memory. Only these names
 * are served, so no path can reach other resources.
 *
 * <p>Thread-safety: immutable after construction.
 */
public final class WebResources {
    private static final String DIRECTORY = "io/neptune/examples/gateway/web/";
    private static final Map<String, String> TYPES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "app.js", "text/javascript; charset=utf-8",
            "style.css", "text/css; charset=utf-8");

    private final Map<String, GatewayResponse> files = new LinkedHashMap<>();

    /** Loads the files. */
    public WebResources() {
        TYPES.forEach((name, type) -> files.put(name, GatewayResponse.bytes(200, type, read(name))
                .withHeader("Cache-Control", "no-cache")));
    }

    /** Adds {@code GET /} and {@code GET /<file>} for each file. */
    public void register(Router router) {
        router.add("GET", "/", (request, parameters) -> CompletableFuture.completedFuture(files.get("index.html")));
        files.forEach((name, response) -> router.add("GET", "/" + name,
                (request, parameters) -> CompletableFuture.completedFuture(response)));
    }

    private static byte[] read(String name) {
        ClassLoader loader = WebResources.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(DIRECTORY + name)) {
            if (in == null) {
                throw new IllegalStateException("web resource " + DIRECTORY + name + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
