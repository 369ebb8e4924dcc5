package io.neptune.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.core.internal.ReadingResumed;
import io.neptune.core.internal.json.Json;
import io.neptune.server.internal.security.AdminToken;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Answers the admin port's requests: {@code GET /metrics}, {@code /health}, {@code /health/live}
 * and {@code /health/ready}; 404 for any other path, 405 (with {@code Allow: GET}) for any other
 * method, 400 for a request Netty could not decode. Once an answer is written the connection reads
 * its next request (auto-read is off: see {@link AdminServer}).
 *
 * <p>{@code /health/*} is answered at once on the connection's event loop: it costs little, and a
 * probe must not wait behind scrapes. Every other route asks for the bearer token when the node has
 * one ({@link AdminToken}): 401 with {@code WWW-Authenticate: Bearer} without it, 403 with a wrong
 * one. {@code /metrics} is rendered by {@link MetricsRenderer}, never on an event loop, and only
 * while {@link AdminConnections} has a place for it; else it is answered 503 with
 * {@code Retry-After} and the connection closed.
 *
 * <p>Thread-safety: sharable; it keeps no per-connection state but the answering mark.
 */
@ChannelHandler.Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    /** The Prometheus text exposition format's content type. */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    /** Marks a connection whose request is being answered: it reads nothing more until the answer is out. */
    private static final AttributeKey<Boolean> ANSWERING = AttributeKey.valueOf("neptune.admin.answering");
    private static final Set<String> PATHS = Set.of("/metrics", "/health", "/health/live", "/health/ready");

    private static final String HEALTH_PREFIX = "/health";

    private final Supplier<Health> health;
    private final MetricsRenderer renderer;
    private final AdminConnections connections;
    private final @Nullable AdminToken token;
    private final LongAdder unauthenticated = new LongAdder();
    private final LongAdder forbidden = new LongAdder();

    AdminHttpHandler(Supplier<Health> health, MetricsRenderer renderer,
            AdminConnections connections,
            @Nullable AdminToken token) {
        this.health = health;
        this.renderer = renderer;
        this.connections = connections;
        this.token = token;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read();
        ctx.fireChannelActive();
    }

    /** Whether {@code channel}'s request is being answered: it reads nothing more until the answer is out. */
    static boolean answering(Channel channel) {
        return channel.attr(ANSWERING).get() != null;
    }

    /** A read that brought no whole request: read on until one comes. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!answering(ctx.channel())) {
            ctx.read();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        ctx.channel().attr(ANSWERING).set(Boolean.TRUE);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!request.decoderResult().isSuccess()) {
            write(ctx, text(HttpResponseStatus.BAD_REQUEST, "malformed request\n"), false, () -> { });
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        HttpMethod method = request.method();
        if (PATHS.contains(path) && path.startsWith(HEALTH_PREFIX)) { // open, and never behind a scrape
            write(ctx, answerOrFail(method, path), keepAlive, () -> { });
            return;
        }
        FullHttpResponse refused = authorize(request.headers().get(HttpHeaderNames.AUTHORIZATION));
        if (refused != null) {
            write(ctx, refused, keepAlive, () -> { });
            return;
        }
        if (!path.equals("/metrics") || !method.equals(HttpMethod.GET)) {
            write(ctx, answerOrFail(method, path), keepAlive, () -> { });
            return;
        }
        if (!connections.tryAcquireBusy()) {
            FullHttpResponse busy = text(HttpResponseStatus.SERVICE_UNAVAILABLE, "too many /metrics answers in"
                    + " progress; retry later\n");
            busy.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
            write(ctx, busy, false, () -> { });
            return;
        }
        renderer.next().whenComplete((text, failure) -> write(ctx, failure == null
                ? response(HttpResponseStatus.OK, PROMETHEUS_TEXT, text) : failed(failure), keepAlive,
                connections::release));
    }

    private static FullHttpResponse failed(Throwable failure) {
        return failure instanceof RejectedExecutionException // the node is closing
                ? text(HttpResponseStatus.SERVICE_UNAVAILABLE, "the node is stopping\n")
                : text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "cannot answer /metrics: " + failure + "\n");
    }

    /** The answer refusing a request with {@code authorization} (the header, if any), or {@code null} to serve it. */
    private @Nullable FullHttpResponse authorize(@Nullable String authorization) {
        if (token == null) {
            return null;
        }
        return switch (token.check(authorization)) {
            case GRANTED -> null;
            case MISSING -> {
                unauthenticated.increment();
                FullHttpResponse refused = text(HttpResponseStatus.UNAUTHORIZED, "this route needs the admin token"
                        + " (expected: Authorization: Bearer <the content of admin-token-file>)\n");
                refused.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"neptune-admin\"");
                yield refused;
            }
            case WRONG -> {
                forbidden.increment();
                yield text(HttpResponseStatus.FORBIDDEN, "wrong admin token\n");
            }
        };
    }

    /** Requests refused 401: they carried no bearer token. */
    long unauthenticated() {
        return unauthenticated.sum();
    }

    /** Requests refused 403: they carried a wrong bearer token. */
    long forbidden() {
        return forbidden.sum();
    }

    /** The answer to any request but {@code GET /metrics}, which {@link MetricsRenderer} renders. */
    private FullHttpResponse answerOrFail(HttpMethod method, String path) {
        try {
            return answer(method, path);
        } catch (RuntimeException e) { // a health check that throws must not leave the request unanswered
            return text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "cannot answer " + path + ": " + e + "\n");
        }
    }

    private FullHttpResponse answer(HttpMethod method, String path) {
        if (!PATHS.contains(path)) {
            return text(HttpResponseStatus.NOT_FOUND, "no such path: " + path
                    + " (expected: /metrics, /health, /health/live or /health/ready)\n");
        }
        if (!method.equals(HttpMethod.GET)) {
            FullHttpResponse refused = text(HttpResponseStatus.METHOD_NOT_ALLOWED, method + " " + path
                    + " (expected: GET)\n");
            refused.headers().set(HttpHeaderNames.ALLOW, "GET");
            return refused;
        }
        return path.equals("/health/live")
                ? json(HttpResponseStatus.OK, Json.mapper().createObjectNode().put("status", "UP"))
                : ready(health.get()); // /health and /health/ready

    }

    /** 200 when ready, else 503; the body names the replicas that do not serve. */
    private static FullHttpResponse ready(Health health) {
        ObjectNode body = Json.mapper().createObjectNode().put("status", health.isReady() ? "UP" : "DOWN")
                .put("running", health.running());
        ArrayNode notServing = body.putArray("notServing");
        for (Health.NotServing replica : health.notServing()) {
            notServing.addObject().put("service", replica.service()).put("partition", replica.partition())
                    .put("role", replica.role().name().toLowerCase(Locale.ROOT));
        }
        return json(health.isReady() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, body);
    }

    private static FullHttpResponse json(HttpResponseStatus status, ObjectNode body) {
        return response(status, "application/json", body.toString() + "\n");
    }

    static FullHttpResponse text(HttpResponseStatus status, String body) {
        return response(status, "text/plain; charset=utf-8", body);
    }

    private static FullHttpResponse response(HttpResponseStatus status, String contentType, String body) {
        return response(status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    /** An answer of {@code body}, which it wraps, not copies: one render's text goes to many clients. */
    private static FullHttpResponse response(HttpResponseStatus status, String contentType, byte[] body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        return response;
    }

    /**
     * Writes {@code response}; then reads the next request, or closes. {@code written} runs once the
     * write ended, whether it succeeded or the connection closed first.
     */
    private static void write(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive,
            Runnable written) {
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response).addListener(done -> {
                written.run();
                if (done.isSuccess()) {
                    ctx.channel().attr(ANSWERING).set(null);
                    ctx.pipeline().fireUserEventTriggered(ReadingResumed.INSTANCE);
                    ctx.read();
                }
            });
        } else {
            ctx.writeAndFlush(closing(response)).addListener(done -> written.run())
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** {@code response} with {@code Connection: close}. */
    static FullHttpResponse closing(FullHttpResponse response) {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }

    /** A connection idle (no request in its middle, none being answered) for the idle timeout is closed. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent && !answering(ctx.channel())) {
            ctx.close();
        } else {
            ctx.fireUserEventTriggered(event);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // a reset connection, or a request over the size limit: nothing to answer
    }
}
