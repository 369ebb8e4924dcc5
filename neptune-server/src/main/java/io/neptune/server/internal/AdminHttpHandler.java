package io.neptune.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.core.internal.ReadingResumed;
import io.neptune.core.internal.json.Json;
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
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Answers the admin port's requests: {@code GET /metrics}, {@code /health}, {@code /health/live}
 * and {@code /health/ready}; 404 for any other path, 405 (with {@code Allow: GET}) for any other
 * method, 400 for a request Netty could not decode. The answer is built on {@code renderer}, in
 * request order, and written back from there; once it is written the connection reads its next
 * request (auto-read is off: see {@link AdminServer}).
 *
 * <p>Thread-safety: sharable; it keeps no per-connection state.
 */
@ChannelHandler.Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    /** The Prometheus text exposition format's content type. */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    /** Marks a connection whose request is being answered: it reads nothing more until the answer is out. */
    private static final AttributeKey<Boolean> ANSWERING = AttributeKey.valueOf("neptune.admin.answering");
    private static final Set<String> PATHS = Set.of("/metrics", "/health", "/health/live", "/health/ready");

    private final NodeMetrics metrics;
    private final Supplier<Health> health;
    private final Executor renderer;

    AdminHttpHandler(NodeMetrics metrics, Supplier<Health> health, Executor renderer) {
        this.metrics = metrics;
        this.health = health;
        this.renderer = renderer;
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
            write(ctx, text(HttpResponseStatus.BAD_REQUEST, "malformed request\n"), false);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        HttpMethod method = request.method();
        try {
            renderer.execute(() -> write(ctx, answerOrFail(method, path), keepAlive));
        } catch (RejectedExecutionException e) { // the node is closing
            write(ctx, text(HttpResponseStatus.SERVICE_UNAVAILABLE, "the node is stopping\n"), false);
        }
    }

    private FullHttpResponse answerOrFail(HttpMethod method, String path) {
        try {
            return answer(method, path);
        } catch (RuntimeException e) { // a meter that throws must not leave the request unanswered
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
        return switch (path) {
            case "/metrics" -> response(HttpResponseStatus.OK, PROMETHEUS_TEXT, metrics.scrape());
            case "/health/live" -> json(HttpResponseStatus.OK, Json.mapper().createObjectNode().put("status", "UP"));
            default -> ready(health.get());
        };
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
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        return response;
    }

    /** Writes {@code response}; then reads the next request, or closes. */
    private static void write(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response).addListener(written -> {
                if (written.isSuccess()) {
                    ctx.channel().attr(ANSWERING).set(null);
                    ctx.pipeline().fireUserEventTriggered(ReadingResumed.INSTANCE);
                    ctx.read();
                }
            });
        } else {
            ctx.writeAndFlush(closing(response)).addListener(ChannelFutureListener.CLOSE);
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
