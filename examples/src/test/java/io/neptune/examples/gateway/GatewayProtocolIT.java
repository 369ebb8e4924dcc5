package io.neptune.examples.gateway;

import static io.neptune.examples.gateway.GatewayCluster.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.client.ClientConfig;
import io.neptune.core.internal.json.Json;
import io.neptune.examples.gateway.Http.Reply;
import io.neptune.server.EchoTestService;
import io.neptune.server.NeptuneNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway's HTTP hardening against an in-JVM cluster: sessions that anonymous traffic cannot
 * evict, cookie and header fallback, JSON 413/417 before and during a body and in pipeline order,
 * the cross-site guards, per-connection limits, and the dashboard's node rates and DOWN nodes.
 */
class GatewayProtocolIT {
    private static GatewayCluster cluster;
    private static Http http;

    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    static void startCluster() {
        cluster = GatewayCluster.start(2, b -> b.callTimeout(Duration.ofSeconds(10)));
        http = new Http(cluster.baseUrl(), Optional.of("protocol-it-" + UUID.randomUUID()));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    // ---- sessions ------------------------------------------------------------------------------

    @Test
    void anonymousRequestsDoNotEvictAConfirmedSession() {
        try (HttpGateway small = HttpGateway.builder(cluster.gatewayNode()).port(0).maxSessions(4).start()) {
            String base = "http://127.0.0.1:" + small.port();
            Http anonymous = new Http(base, Optional.empty());
            String id = anonymous.get("/style.css").header("X-Neptune-Session").orElseThrow();
            Http user = new Http(base, Optional.of(id));
            assertThat(user.get("/style.css").header("X-Neptune-Session")).isEmpty(); // sent back: confirmed
            assertThat(sessions(anonymous).get("confirmed").asInt()).isEqualTo(1);

            for (int i = 0; i < 2_000; i++) {
                assertThat(anonymous.get("/style.css").status()).isEqualTo(200);
            }
            JsonNode after = sessions(anonymous);
            assertThat(after.get("confirmed").asInt()).as(after.toString()).isEqualTo(1);
            assertThat(after.get("pending").asInt()).isLessThanOrEqualTo(4);
        }
    }

    private static JsonNode sessions(Http client) {
        return client.get("/admin/metrics").json().get("sessions");
    }

    /**
     * The gateway continues the trace an HTTP request comes with and names it in its answer: with no SDK
     * installed no span is recorded, but the {@code traceparent} is passed on (to the answer, and to the
     * calls the request makes); a request without one gets none.
     */
    @Test
    void aRequestsTraceparentIsContinuedAndAnswered() {
        Http client = new Http(cluster.baseUrl(), Optional.empty());
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        Reply traced = client.send(client.request("/api/discussion/" + unique("t") + "/headers")
                .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01").GET());
        assertThat(traced.status()).isEqualTo(200);
        assertThat(traced.header("traceparent")).hasValueSatisfying(t -> assertThat(t).startsWith("00-" + traceId + "-"));

        Reply untraced = client.get("/api/discussion/" + unique("t") + "/headers");
        assertThat(untraced.status()).isEqualTo(200);
        assertThat(untraced.header("traceparent")).isEmpty();

        for (String malformed : List.of("garbage", "00-" + "0".repeat(32) + "-00f067aa0ba902b7-01", "ff-" + traceId
                + "-00f067aa0ba902b7-01-extra", "00-" + traceId.toUpperCase(Locale.ROOT) + "-00f067aa0ba902b7-01")) {
            Reply ignored = client.send(client.request("/api/discussion/" + unique("t") + "/headers")
                    .header("traceparent", malformed).GET());
            assertThat(ignored.status()).as(malformed).isEqualTo(200);
            assertThat(ignored.header("traceparent")).as("a malformed trace is not continued: %s", malformed).isEmpty();
        }
    }

    @Test
    void anInvalidCookieFallsBackToAValidHeader() {
        String valid = "fallback-" + UUID.randomUUID();
        Http anonymous = new Http(cluster.baseUrl(), Optional.empty());
        Reply both = anonymous.send(anonymous.request("/style.css").header("Cookie", "neptune-session=bad!")
                .header("X-Neptune-Session", valid).GET());
        assertThat(both.status()).isEqualTo(200);
        assertThat(both.header("Set-Cookie")).as("the header's session is used, none issued").isEmpty();
        assertThat(both.header("X-Neptune-Session")).isEmpty();

        Reply neither = anonymous.send(anonymous.request("/style.css").header("Cookie", "neptune-session=bad!")
                .header("X-Neptune-Session", "short").GET());
        assertThat(neither.header("X-Neptune-Session")).isPresent();

        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            RawHttp.Response malformed = raw.write("GET /api/cache/%zz HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(malformed.status()).isEqualTo(400);
            assertThat(malformed.headers()).as("no session for a malformed request").doesNotContainKey("set-cookie");
        }
    }

    // ---- bodies over the limit -----------------------------------------------------------------

    @Test
    void expectContinueWithAnOversizeLengthAnswersJson413() {
        int over = HttpGateway.DEFAULT_MAX_BODY_BYTES + 1;
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            RawHttp.Response refused = raw.write("POST /api/discussion/t/messages HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: " + over + "\r\n\r\n")
                    .read();
            assertThat(refused.status()).isEqualTo(413);
            assertThat(refused.headers().get("content-type")).startsWith("application/json");
            assertThat(json(refused).get("error").asText()).contains(String.valueOf(HttpGateway.DEFAULT_MAX_BODY_BYTES));
            // The connection stays usable: the client never sent the body.
            RawHttp.Response next = raw.write("GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(next.status()).isEqualTo(200);
        }
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            RawHttp.Response unknown = raw.write("POST /api/discussion/t/messages HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Type: application/json\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}").read();
            assertThat(unknown.status()).isEqualTo(417);
            assertThat(json(unknown).get("error").asText()).contains("teapot");
            await().atMost(Duration.ofSeconds(10)).until(raw::isClosedByServer);
        }
    }

    /**
     * A body over the limit without {@code Expect} is thrown away as it comes, and the connection stays
     * open: the end of that body ends the request for the request timeout too. The clock, started again
     * by the body's bytes, ran on, and the idle connection got an unasked-for 408 and was closed.
     */
    @Test
    void aRefusedBodyThrownAwayLeavesTheConnectionUsableBeyondTheRequestTimeout() {
        int limit = 1024;
        try (HttpGateway small = HttpGateway.builder(cluster.gatewayNode()).port(0).maxBodyBytes(limit)
                .requestTimeout(Duration.ofMillis(500)).start();
                RawHttp raw = new RawHttp(small.port())) {
            raw.write("POST /api/discussion/t/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + 4 * limit + "\r\n\r\n");
            assertThat(raw.read().status()).isEqualTo(413);
            for (int i = 0; i < 4; i++) {
                raw.write("a".repeat(limit));
            }

            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !raw.isClosedByServer());
            assertThat(raw.write("GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @Test
    void aChunkedOversizeBodyAnswersJson413AndCloses() {
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            raw.write("POST /api/discussion/t/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n");
            String chunk = Integer.toHexString(64 * 1024) + "\r\n" + "a".repeat(64 * 1024) + "\r\n";
            for (int sent = 0; sent <= HttpGateway.DEFAULT_MAX_BODY_BYTES / (64 * 1024); sent++) {
                raw.write(chunk);
            }
            RawHttp.Response refused = raw.read();
            assertThat(refused.status()).isEqualTo(413);
            assertThat(json(refused).get("error").asText()).isNotBlank();
            await().atMost(Duration.ofSeconds(10)).until(raw::isClosedByServer);
        }
    }

    @Test
    void aRefusalWaitsForTheEarlierPipelinedAnswers() {
        String topic = unique("pipelined");
        String slow = "GET /api/discussion/" + topic + "/headers HTTP/1.1\r\nHost: x\r\n\r\n";
        String oversize = "POST /api/discussion/" + topic + "/messages HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: "
                + (HttpGateway.DEFAULT_MAX_BODY_BYTES + 1) + "\r\n\r\n";
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            raw.write(slow + oversize + slow);
            assertThat(raw.read().status()).isEqualTo(200);
            assertThat(raw.read().status()).isEqualTo(413);
            assertThat(raw.read().status()).isEqualTo(200);
        }
    }

    @Test
    void aContinueWaitsForTheEarlierPipelinedAnswers() {
        String topic = unique("continue");
        String slow = "GET /api/discussion/" + topic + "/headers HTTP/1.1\r\nHost: x\r\n\r\n";
        String body = "{\"author\":\"ada\",\"subject\":\"hello\",\"body\":\"after the continue\"}";
        String post = "POST /api/discussion/" + topic + "/messages HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: " + body.length()
                + "\r\n\r\n";
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            raw.write(slow + post);
            assertThat(raw.read().status()).as("the earlier request's answer first").isEqualTo(200);
            assertThat(raw.read().status()).as("then the interim answer").isEqualTo(100);
            raw.write(body);
            RawHttp.Response created = raw.read();
            assertThat(created.status()).isEqualTo(201);
            assertThat(created.body()).as("the body sent after the continue was read").contains("\"id\"");
        }
    }

    @Test
    void manyPipelinedRequestsAreAllAnsweredInOrder() {
        // Past the gateway's bound of 64 (reading pauses, then resumes as answers drain), within Netty's
        // HttpServerCodec limit of 128 requests decoded ahead of their answers (past it, it closes the connection).
        int count = 100;
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < count; i++) {
            requests.append("GET /api/cache/pipelined-").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            raw.write(requests.toString());
            for (int i = 0; i < count; i++) {
                RawHttp.Response response = raw.read();
                assertThat(response.status()).isEqualTo(404);
                assertThat(response.body()).contains("pipelined-" + i + "'");
            }
        }
    }

    @Test
    void anIdleConnectionIsClosed() {
        try (HttpGateway impatient = HttpGateway.builder(cluster.gatewayNode()).port(0)
                .idleTimeout(Duration.ofMillis(300)).start();
                RawHttp raw = new RawHttp(impatient.port())) {
            assertThat(raw.write("GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10)).until(raw::isClosedByServer);
        }
    }

    @Test
    void aRequestThatStopsPartWayIsAnswered408AndClosed() {
        try (HttpGateway impatient = HttpGateway.builder(cluster.gatewayNode()).port(0)
                .requestTimeout(Duration.ofMillis(500)).start();
                RawHttp raw = new RawHttp(impatient.port())) {
            assertThat(raw.write("GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            raw.write("GET /style.css HTTP/1.1\r\nHo"); // and nothing more, as a client that hung or dribbles

            RawHttp.Response timedOut = raw.read();
            assertThat(timedOut.status()).isEqualTo(408);
            assertThat(json(timedOut).get("error").asText()).contains("request timeout");
            await().atMost(Duration.ofSeconds(10)).until(raw::isClosedByServer);
        }
    }

    /**
     * A client that sends and never reads: the gateway stops reading it once its answers are not
     * taken, so the client's sends block (TCP's flow control) instead of the gateway queueing every
     * answer; when the client reads at last, every answer comes.
     */
    @Test
    void aClientThatDoesNotReadIsHeldByFlowControlAndThenGetsEveryAnswer() throws Exception {
        int requests = 2000;
        // 60 KB of body each (a GET's body is read and ignored): 120 MB the gateway would read at once
        String body = "b".repeat(60_000);
        byte[] request = ("GET /app.js HTTP/1.1\r\nHost: 127.0.0.1:" + cluster.gateway().port() + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        try (RawHttp raw = new RawHttp(cluster.gateway().port())) {
            java.util.concurrent.CompletableFuture<Void> sent = java.util.concurrent.CompletableFuture.runAsync(() -> {
                for (int i = 0; i < requests; i++) {
                    raw.write(request);
                }
            });
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(20)).until(() -> !sent.isDone());

            for (int i = 0; i < requests; i++) {
                assertThat(raw.read().status()).isEqualTo(200);
            }
            sent.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    // ---- cross-site guards ---------------------------------------------------------------------

    @Test
    void postsNeedJsonAndAdminActionsNeedTheAdminToken() {
        String path = "/api/discussion/" + unique("csrf") + "/messages";
        String body = "{\"author\":\"a\",\"subject\":\"s\",\"body\":\"b\"}";
        Reply missing = http.post(path, body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(missing.status()).isEqualTo(415);
        assertThat(missing.error()).contains("Content-Type");
        for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"}) {
            Reply form = http.send(http.request(path).header("Content-Type", type)
                    .POST(HttpRequest.BodyPublishers.ofString(body)));
            assertThat(form.status()).as(type).isEqualTo(415);
        }
        Reply json = http.send(http.request(path).header("Content-Type", "Application/JSON; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        assertThat(json.status()).as(json.toString()).isEqualTo(201);
        assertThat(http.put("/api/cache/" + unique("any-type"), new byte[] {1, 2}).status()).isEqualTo(204);

        Reply noToken = http.send(http.request("/admin/nodes/node-0/kill").header("X-Neptune-Admin", "1")
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(noToken.status()).as("the old header alone is no credential").isEqualTo(401);
        assertThat(noToken.header("WWW-Authenticate")).hasValue("Bearer realm=\"neptune-gateway\"");
        Reply withToken = http.admin("/admin/nodes/node-0/kill");
        assertThat(withToken.status()).as("passes the guard; no demo mode here").isEqualTo(404);
    }

    // ---- dashboard -----------------------------------------------------------------------------

    @Test
    void nodesUnderLoadReportRequestsPerSecond() {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (int i = 0; i < 20; i++) {
                http.put("/api/cache/" + unique("load"), new byte[] {1});
            }
            JsonNode nodes = http.get("/admin/cluster").json().get("nodes");
            boolean all = nodes.size() >= 2;
            for (JsonNode node : nodes) {
                all &= node.get("state").asText().equals("DOWN") || node.get("requestsPerSecond").asDouble() > 0;
            }
            return all;
        });
        JsonNode metrics = http.get("/admin/metrics").json();
        assertThat(metrics.get("nodes").get(0).has("requestsPerSecond")).isTrue();
    }

    @Test
    void aNodeThatLeftIsShownDown() {
        NeptuneNode extra = cluster.cluster().add("extra-" + UUID.randomUUID().toString().substring(0, 4),
                ClientConfig.defaults(), b -> b.host(new EchoTestService(), io.neptune.server.HostingConfig.builder().build()));
        String id = extra.node().value();
        await().atMost(Duration.ofSeconds(30)).until(() -> "RUNNING".equals(stateOf(id)));
        extra.close();
        await().atMost(Duration.ofSeconds(60)).until(() -> "DOWN".equals(stateOf(id)));
        JsonNode down = nodeOf(id);
        assertThat(down.get("pid").asLong()).isEqualTo(-1);
        assertThat(down.get("requestsPerSecond").asDouble()).isZero();
    }

    private static String stateOf(String id) {
        JsonNode node = nodeOf(id);
        return node == null ? "" : node.get("state").asText();
    }

    private static JsonNode nodeOf(String id) {
        for (JsonNode node : http.get("/admin/cluster").json().get("nodes")) {
            if (node.get("id").asText().equals(id)) {
                return node;
            }
        }
        return null;
    }

    private static JsonNode json(RawHttp.Response response) {
        try {
            return Json.mapper().readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + response, e);
        }
    }
}
