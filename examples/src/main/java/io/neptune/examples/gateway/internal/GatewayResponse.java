package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.neptune.core.internal.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What a route answers, before it becomes a Netty response.
 *
 * @param status HTTP status
 * @param contentType the body's media type; empty for no body
 * @param body the body
 * @param headers extra response headers
 */
public record GatewayResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
    /** Media type of every JSON answer. */
    public static final String JSON = "application/json; charset=utf-8";

    /** Copies the headers. */
    public GatewayResponse {
        requireNonNull(contentType, "contentType");
        requireNonNull(body, "body");
        headers = Map.copyOf(headers);
    }

    /** {@code value} serialized as JSON. */
    public static GatewayResponse json(int status, Object value) {
        try {
            return new GatewayResponse(status, JSON, Json.mapper().writeValueAsBytes(value), Map.of());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    /** {@code {"error": message}}. */
    public static GatewayResponse error(int status, String message) {
        return json(status, Map.of("error", message));
    }

    /** 204 No Content. */
    public static GatewayResponse noContent() {
        return new GatewayResponse(204, "", new byte[0], Map.of());
    }

    /** Raw bytes with a media type. */
    public static GatewayResponse bytes(int status, String contentType, byte[] body) {
        return new GatewayResponse(status, contentType, body, Map.of());
    }

    /** This response with one more header. */
    public GatewayResponse withHeader(String name, String value) {
        Map<String, String> more = new java.util.LinkedHashMap<>(headers);
        more.put(name, value);
        return new GatewayResponse(status, contentType, body, more);
    }

    @Override
    public String toString() {
        return status + " " + (contentType.startsWith("application/json") && body.length < 200
                ? new String(body, StandardCharsets.UTF_8) : body.length + " bytes " + contentType);
    }
}
