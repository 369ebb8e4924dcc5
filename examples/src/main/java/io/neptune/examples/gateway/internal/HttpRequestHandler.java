package io.neptune.examples.gateway.internal;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.CookieHeaderNames;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns each aggregated request into a {@link GatewayRequest} with its session, routes it, and
 * writes the answer when the route's future completes. Routes answer out of order, so answers are
 * held until every earlier request on the connection has been answered (HTTP/1.1 pipelining).
 *
 * <p>Thread-safety: one instance per connection, confined to its event loop; completions hop back
 * to it with {@code thenAcceptAsync(..., ctx.executor())}.
 */
final class HttpRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger logger = LoggerFactory.getLogger(HttpRequestHandler.class);

    private final Router router;
    private final Sessions sessions;
    private final GatewayMetrics metrics;
    private final Map<Long, Outgoing> ready = new HashMap<>();
    private long received;
    private long written;

    private record Outgoing(GatewayResponse response, Sessions.Session session, boolean keepAlive) {}

    HttpRequestHandler(Router router, Sessions sessions, GatewayMetrics metrics) {
        this.router = router;
        this.sessions = sessions;
        this.metrics = metrics;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        assert ctx.executor().inEventLoop();
        long sequence = received++;
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        Sessions.Session session = sessions.resolve(Sessions.idOf(cookie(request), request.headers().get(Sessions.HEADER)));
        if (!request.decoderResult().isSuccess()) {
            send(ctx, sequence, new Outgoing(GatewayResponse.error(400, "malformed HTTP request: "
                    + request.decoderResult().cause()), session, false));
            return;
        }
        GatewayRequest decoded;
        try {
            decoded = new GatewayRequest(request.method().name(), path(request.uri()),
                    ByteBufUtil.getBytes(request.content()), session.handle());
        } catch (IllegalArgumentException e) {
            send(ctx, sequence, new Outgoing(GatewayResponse.error(400, "path: '" + request.uri()
                    + "' (expected: a valid URL path)"), session, keepAlive));
            return;
        }
        router.route(decoded).handle((response, failure) -> failure == null ? response : HttpErrors.response(failure))
                .thenAcceptAsync(response -> {
                    logger.debug("gateway: {} -> {}", decoded, response);
                    metrics.record(decoded.path());
                    send(ctx, sequence, new Outgoing(response, session, keepAlive));
                }, ctx.executor());
    }

    private static @Nullable String cookie(FullHttpRequest request) {
        String header = request.headers().get(HttpHeaderNames.COOKIE);
        if (header == null) {
            return null;
        }
        for (Cookie cookie : ServerCookieDecoder.LAX.decode(header)) {
            if (cookie.name().equals(Sessions.COOKIE)) {
                return cookie.value();
            }
        }
        return null;
    }

    /** The URL-decoded path segments of {@code uri}; a {@code +} stays a plus sign. */
    static List<String> path(String uri) {
        List<String> segments = new ArrayList<>();
        for (String raw : Router.segments(new QueryStringDecoder(uri).rawPath())) {
            segments.add(QueryStringDecoder.decodeComponent(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
        }
        return segments;
    }

    private void send(ChannelHandlerContext ctx, long sequence, Outgoing outgoing) {
        ready.put(sequence, outgoing);
        Outgoing next;
        while ((next = ready.remove(written)) != null) {
            written++;
            write(ctx, next);
        }
    }

    private static void write(ChannelHandlerContext ctx, Outgoing outgoing) {
        GatewayResponse r = outgoing.response();
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(r.status()), Unpooled.wrappedBuffer(r.body()));
        if (!r.contentType().isEmpty()) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        }
        HttpUtil.setContentLength(response, r.body().length);
        r.headers().forEach((name, value) -> response.headers().set(name, value));
        Sessions.Session session = outgoing.session();
        if (session.issued()) {
            DefaultCookie cookie = new DefaultCookie(Sessions.COOKIE, session.id());
            cookie.setPath("/");
            cookie.setHttpOnly(true);
            cookie.setSameSite(CookieHeaderNames.SameSite.Lax);
            response.headers().set(HttpHeaderNames.SET_COOKIE, ServerCookieEncoder.STRICT.encode(cookie));
            response.headers().set(Sessions.HEADER, session.id());
        }
        HttpUtil.setKeepAlive(response, outgoing.keepAlive());
        ChannelFuture future = ctx.writeAndFlush(response);
        if (!outgoing.keepAlive()) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ready.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        logger.debug("gateway: closing {} after {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
