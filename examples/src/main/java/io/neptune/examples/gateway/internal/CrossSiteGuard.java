package io.neptune.examples.gateway.internal;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Refuses requests a web page on another site could make a browser send with the user's cookie
 * (cross-site request forgery), by asking for what only a same-origin script, or a program, can
 * send without a CORS preflight (and the gateway answers no preflight):
 *
 * <ul>
 *   <li>{@code POST /api/...} must carry {@code Content-Type: application/json} (parameters such
 *       as {@code charset} allowed), else 415: an HTML form can only send the three "simple"
 *       types ({@code application/x-www-form-urlencoded}, {@code multipart/form-data},
 *       {@code text/plain});
 *   <li>{@code PUT} (the cache) takes any content type, since the value is raw bytes: no form can
 *       send a {@code PUT}, and a cross-origin script's {@code PUT} always needs a preflight.
 * </ul>
 *
 * <p>Admin actions need more than a same-origin page: the admin's bearer token, which browsers never
 * send on their own, and a {@code Host} and {@code Origin} of this gateway ({@link AccessPolicy}).
 *
 * <p>Thread-safety: stateless.
 */
final class CrossSiteGuard {
    private CrossSiteGuard() {}

    /** The error to answer instead of routing, or empty if the request may proceed. */
    static Optional<GatewayResponse> refusal(String method, List<String> path, @Nullable String contentType) {
        if (!method.equals("POST") || path.isEmpty()) {
            return Optional.empty();
        }
        if (path.get(0).equals("api") && !isJson(contentType)) {
            return Optional.of(GatewayResponse.error(415, "Content-Type: " + (contentType == null ? "missing"
                    : "'" + contentType + "'") + " (expected: application/json)"));
        }
        return Optional.empty();
    }

    private static boolean isJson(@Nullable String contentType) {
        if (contentType == null) {
            return false;
        }
        int semicolon = contentType.indexOf(';');
        String mediaType = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
        return mediaType.trim().toLowerCase(Locale.ROOT).equals("application/json");
    }
}
