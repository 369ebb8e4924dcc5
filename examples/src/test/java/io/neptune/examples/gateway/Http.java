package io.neptune.examples.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.core.internal.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/** A small HTTP/1.1 client for gateway tests; every request carries the session header unless told otherwise. */
final class Http {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final Optional<String> session;

    Http(String base, Optional<String> session) {
        this.base = base;
        this.session = session;
    }

    /** A response with its body as bytes, and helpers to read it. */
    record Reply(int status, byte[] body, HttpResponse<byte[]> raw) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            try {
                return Json.mapper().readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON (" + status + "): " + text(), e);
            }
        }

        String error() {
            JsonNode error = json().get("error");
            if (error == null || !error.isTextual()) {
                throw new AssertionError("expected {\"error\": ...}, got " + status + " " + text());
            }
            return error.textValue();
        }

        Optional<String> header(String name) {
            return raw.headers().firstValue(name);
        }

        @Override
        public String toString() {
            return status + " " + (body.length > 300 ? text().substring(0, 300) + "..." : text());
        }
    }

    Reply get(String path) {
        return send(request(path).GET());
    }

    Reply post(String path, String json) {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A JSON POST with {@code Idempotency-Key: key}: sent again with the same key, it runs once. */
    Reply post(String path, String json, String key) {
        return send(request(path).header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /**
     * A JSON POST as the web UI sends a write: under one {@code Idempotency-Key}, sent again (up to
     * five times, a growing pause apart) while the answer is 503 (nothing ran) or 504 (the outcome is
     * unknown), such as during a primary's step-down on a loaded machine. Answers the last reply.
     */
    Reply postUntilAnswered(String path, String json) {
        String key = java.util.UUID.randomUUID().toString();
        Reply reply = post(path, json, key);
        for (int attempt = 1; attempt < 5 && (reply.status() == 503 || reply.status() == 504); attempt++) {
            try {
                Thread.sleep(250L << attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            reply = post(path, json, key);
        }
        return reply;
    }

    Reply post(String path, byte[] body) {
        return send(request(path).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    /**
     * An admin action as the dashboard sends it: an empty POST with
     * {@code Authorization: Bearer} {@link GatewayCluster#ADMIN_TOKEN}.
     */
    Reply admin(String path) {
        return send(request(path).header("Authorization", "Bearer " + GatewayCluster.ADMIN_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** A GET as the admin ({@link GatewayCluster#ADMIN_TOKEN}) with {@code header: value}. */
    HttpRequest.Builder asAdmin(String path) {
        return request(path).header("Authorization", "Bearer " + GatewayCluster.ADMIN_TOKEN);
    }

    Reply put(String path, byte[] body) {
        return send(request(path).PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    Reply delete(String path) {
        return send(request(path).DELETE());
    }

    Reply send(HttpRequest.Builder builder) {
        try {
            HttpResponse<byte[]> response = client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Reply(response.statusCode(), response.body(), response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        session.ifPresent(id -> builder.header("X-Neptune-Session", id));
        return builder;
    }
}
