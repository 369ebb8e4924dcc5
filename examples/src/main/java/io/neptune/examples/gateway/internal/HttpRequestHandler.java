package io.neptune.examples.gateway.internal;

import io.neptune.client.internal.Tracing;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.ReadingResumed;
import io.neptune.examples.gateway.RequestClassifier;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
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
import io.netty.handler.timeout.IdleStateEvent;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns each aggregated request that {@link AccessPolicy} admits into a {@link GatewayRequest} with its
 * session and the service class of its {@link Caller}, routes it, and
 * writes the answer when the route's future completes. Routes answer out of order, so answers are
 * held until every earlier request on the connection has been answered (HTTP/1.1 pipelining);
 * requests refused before their body ({@link BoundedAggregatorHandler.RefusedRequest}) and the
 * {@code 100 Continue} of a request that waits for one take their turn the same way.
 *
 * <p>Per connection, at most {@link #MAX_OUTSTANDING} requests are read ahead of their answers:
 * past that the handler stops reading (auto-read off) until answers drain below it; and while the
 * answers written are not taken by the client (the channel not writable) it reads nothing either,
 * so a client that sends and never reads holds a bounded number of answers here. A connection
 * idle for the idle timeout (an {@link IdleStateEvent}) with no request outstanding is closed; a
 * request not whole within the request timeout ({@link TimedOut}) is answered 408, in its turn,
 * and the connection closed.
 *
 * <p>Thread-safety: one instance per connection, confined to its event loop; completions hop back
 * to it with {@code thenAcceptAsync(..., ctx.executor())}.
 */
final class HttpRequestHandler extends ChannelInboundHandlerAdapter {
    /** Requests read but not yet answered on one connection beyond which reading pauses. */
    static final int MAX_OUTSTANDING = 64;

    private static final Logger logger = LoggerFactory.getLogger(HttpRequestHandler.class);

    /** The user event of a request that did not arrive whole within the request timeout. */
    static final class TimedOut {
        static final TimedOut INSTANCE = new TimedOut();

        private TimedOut() {}
    }

    private final Router router;
    private final Sessions sessions;
    private final GatewayMetrics metrics;
    private final RequestClassifier classifier;
    private final AccessPolicy access;
    private final Tracing tracing;
    private final Map<Long, Outgoing> ready = new HashMap<>();
    private long received;
    private long written;
    /** The sequence of the request waiting for {@code 100 Continue}, or -1: it is written when its turn comes. */
    private long continueFor = -1;
    private boolean closing;
    /** A request did not arrive in time: its 408 is queued, and nothing read after it runs. */
    private boolean timedOut;

    /** An answer waiting for its turn; {@code issuedSession} is the id to hand out, if the gateway just made one. */
    private record Outgoing(GatewayResponse response, @Nullable String issuedSession, boolean keepAlive) {}

    HttpRequestHandler(Router router, Sessions sessions, GatewayMetrics metrics, RequestClassifier classifier,
            AccessPolicy access, Tracing tracing) {
        this.tracing = tracing;
        this.classifier = classifier;
        this.access = access;
        this.router = router;
        this.sessions = sessions;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (!closing && !timedOut) {
                serve(ctx, request);
            }
        } finally {
            request.release();
        }
    }

    private void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
        assert ctx.executor().inEventLoop();
        long sequence = accept(ctx);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!request.decoderResult().isSuccess()) {
            send(ctx, sequence, new Outgoing(GatewayResponse.error(400, "malformed HTTP request: "
                    + request.decoderResult().cause()), null, false));
            return;
        }
        List<String> path;
        try {
            path = path(request.uri());
        } catch (IllegalArgumentException e) {
            send(ctx, sequence, new Outgoing(GatewayResponse.error(400, "path: '" + request.uri()
                    + "' (expected: a valid URL path)"), null, keepAlive));
            return;
        }
        QueryParameters query;
        try {
            query = QueryParameters.parse(new QueryStringDecoder(request.uri()).rawQuery());
        } catch (IllegalArgumentException e) {
            send(ctx, sequence, new Outgoing(GatewayResponse.error(400, "query string: " + e.getMessage()
                    + " (expected: name=value pairs separated by &, percent-encoded UTF-8)"), null, keepAlive));
            return;
        }
        AccessPolicy.Admission admission = access.admit(request.method().name(), path, request.headers()::get,
                (InetSocketAddress) ctx.channel().localAddress());
        if (admission instanceof AccessPolicy.Admission.Refused refusal) {
            send(ctx, sequence, new Outgoing(refusal.response(), null, keepAlive));
            return;
        }
        Caller caller = ((AccessPolicy.Admission.Admitted) admission).caller();
        Optional<GatewayResponse> refused = CrossSiteGuard.refusal(request.method().name(), path,
                request.headers().get(HttpHeaderNames.CONTENT_TYPE));
        if (refused.isPresent()) {
            send(ctx, sequence, new Outgoing(refused.get(), null, keepAlive));
            return;
        }
        String serviceClass;
        try {
            serviceClass = ServiceClass.checkName(caller.serviceClass(classifier, request.headers()::get));
        } catch (RuntimeException e) {
            send(ctx, sequence, new Outgoing(GatewayResponse.error(400, "request class: " + e.getMessage()), null,
                    keepAlive));
            return;
        }
        byte[] body = ByteBufUtil.getBytes(request.content());
        Optional<String> requestId;
        try {
            requestId = IdempotencyKey.requestId(request.headers().get(IdempotencyKey.HEADER), caller,
                    request.method().name(), path, body);
        } catch (HttpStatusException e) {
            send(ctx, sequence, new Outgoing(HttpErrors.response(e), null, keepAlive));
            return;
        }
        Sessions.Session session = sessions.resolve(cookie(request), request.headers().get(Sessions.HEADER));
        GatewayRequest decoded = new GatewayRequest(request.method().name(), path, body, session.handle(),
                serviceClass, query, requestId.orElse(null));
        String issued = session.issued() ? session.id() : null;
        Span span = tracing.httpSpan(spanName(request.method().name(), path), "/" + String.join("/", path),
                request.headers()::get);
        CompletableFuture<GatewayResponse> routed;
        try (Scope scope = span == null ? Scope.noop() : span.makeCurrent()) { // its calls are the span's children
            routed = router.route(decoded);
        }
        routed.handle((response, failure) -> failure == null ? response : HttpErrors.response(failure))
                .thenAcceptAsync(response -> {
                    logger.debug("gateway: {} by {} -> {}", decoded, caller, response);
                    metrics.record(decoded.path());
                    GatewayResponse answer = response;
                    if (span != null) {
                        Tracing.endHttp(span, response.status());
                        answer = response.withHeader(Tracing.TRACEPARENT, Tracing.traceparent(span));
                    }
                    send(ctx, sequence, new Outgoing(answer, issued, keepAlive));
                }, ctx.executor());
    }

    /** A span's name: the method and the route's first two segments ({@code GET /api/search}), not its ids. */
    private static String spanName(String method, List<String> path) {
        return method + " /" + String.join("/", path.subList(0, Math.min(2, path.size())));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof BoundedAggregatorHandler.RefusedRequest refused) {
            if (!closing) {
                send(ctx, accept(ctx), new Outgoing(refused.response(), null, !refused.close()));
            }
        } else if (event instanceof BoundedAggregatorHandler.ContinueRequested) {
            if (!closing) {
                continueFor = received; // the request is numbered once its body has come
                writeContinueInTurn(ctx);
            }
        } else if (event instanceof TimedOut) {
            if (!closing && !timedOut) {
                // nothing read after this runs: the client is told the request did not arrive, so it must not run
                timedOut = true;
                continueFor = -1;
                ctx.channel().config().setAutoRead(false);
                send(ctx, accept(ctx), new Outgoing(GatewayResponse.error(408, "the request did not arrive whole"
                        + " within the request timeout"), null, false));
            }
        } else if (event instanceof IdleStateEvent) {
            if (received == written) {
                logger.debug("gateway: closing idle connection {}", ctx.channel().remoteAddress());
                ctx.close();
            }
        } else {
            super.userEventTriggered(ctx, event);
        }
    }

    /** Numbers a new request and stops reading if too many are outstanding. */
    private long accept(ChannelHandlerContext ctx) {
        long sequence = received++;
        if (received - written >= MAX_OUTSTANDING && ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
        }
        return sequence;
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
        for (Outgoing next = takeNext(ctx); next != null; next = takeNext(ctx)) {
            written++;
            write(ctx, next);
            if (!next.keepAlive()) {
                closing = true;
                ready.clear();
                return;
            }
        }
        readIfRoom(ctx);
    }

    /** Whether a request waits for its {@code 100 Continue} (the gateway's wait, not the client's). */
    boolean awaitingContinue() {
        return continueFor >= 0;
    }

    /** Reads again when fewer than {@link #MAX_OUTSTANDING} requests wait and the client takes its answers. */
    private void readIfRoom(ChannelHandlerContext ctx) {
        if (received - written < MAX_OUTSTANDING && ctx.channel().isWritable() && !closing && !timedOut
                && !ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
            ctx.pipeline().fireUserEventTriggered(ReadingResumed.INSTANCE);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            readIfRoom(ctx);
        } else {
            ctx.channel().config().setAutoRead(false);
        }
        super.channelWritabilityChanged(ctx);
    }

    /** The answer whose turn it is, if it is ready; a {@code 100 Continue} due before it is written first. */
    private @Nullable Outgoing takeNext(ChannelHandlerContext ctx) {
        writeContinueInTurn(ctx);
        return ready.remove(written);
    }

    /**
     * Writes the pending {@code 100 Continue} once every earlier request is answered: an interim
     * answer written sooner would read as one to an earlier request.
     */
    private void writeContinueInTurn(ChannelHandlerContext ctx) {
        if (continueFor == written) {
            continueFor = -1;
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                    Unpooled.EMPTY_BUFFER));
            ctx.pipeline().fireUserEventTriggered(ReadingResumed.INSTANCE); // the wait for it was the gateway's
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
        String session = outgoing.issuedSession();
        if (session != null) {
            DefaultCookie cookie = new DefaultCookie(Sessions.COOKIE, session);
            cookie.setPath("/");
            cookie.setHttpOnly(true);
            cookie.setSameSite(CookieHeaderNames.SameSite.Lax);
            response.headers().set(HttpHeaderNames.SET_COOKIE, ServerCookieEncoder.STRICT.encode(cookie));
            response.headers().set(Sessions.HEADER, session);
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
