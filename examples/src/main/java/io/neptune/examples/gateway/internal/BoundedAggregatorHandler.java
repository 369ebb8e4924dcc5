package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpExpectationFailedEvent;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.jspecify.annotations.Nullable;

/**
 * Aggregates a request and its body into one {@code FullHttpRequest}, refusing bodies over the
 * limit with 413 and {@code {"error": ...}} (Netty's own aggregator answers with an empty body),
 * whether the client announced the length ({@code Content-Length}, also with
 * {@code Expect: 100-continue}) or streamed it in chunks; an {@code Expect} other than
 * {@code 100-continue} is refused with 417 the same way.
 *
 * <p>Neither the refusal nor a {@code 100 Continue} is written here: each goes down the pipeline as
 * an event ({@link RefusedRequest}, {@link ContinueRequested}), so the {@link HttpRequestHandler}
 * writes it in order after the answers to the earlier pipelined requests on the connection. Like Netty's aggregator, it keeps a keep-alive connection open when the body had not
 * started yet (discarding it if it comes, or expecting the next request after
 * {@code 100-continue}), and closes the connection when the body was already streaming or the
 * expectation was unknown.
 *
 * <p>Thread-safety: confined to its channel's event loop.
 */
final class BoundedAggregatorHandler extends HttpObjectAggregator {
    private final int maxBodyBytes;

    /**
     * A request refused before its body was read, to be answered in order.
     *
     * @param response the error to answer
     * @param close whether to close the connection after it
     */
    record RefusedRequest(GatewayResponse response, boolean close) {}

    /** The request whose body is being thrown away, for it was over the limit, is over when it ends. */
    static final class BodyDiscarded {
        static final BodyDiscarded INSTANCE = new BodyDiscarded();

        private BodyDiscarded() {}
    }

    private @Nullable ChannelHandlerContext context;
    /** A refused request's body is coming, to be thrown away. */
    private boolean discarding;

    BoundedAggregatorHandler(int maxBodyBytes) {
        super(maxBodyBytes);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        context = ctx;
        super.handlerAdded(ctx);
    }

    /** Tells the pipeline when the body of a refused request, thrown away as it came, has ended. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        boolean last = msg instanceof LastHttpContent;
        super.channelRead(ctx, msg);
        if (discarding && last) {
            discarding = false;
            ctx.fireUserEventTriggered(BodyDiscarded.INSTANCE);
        }
    }

    /** A request waits for {@code 100 Continue} before it sends its body; it is answered in order. */
    static final class ContinueRequested {
        static final ContinueRequested INSTANCE = new ContinueRequested();

        private ContinueRequested() {}
    }

    /**
     * Never lets Netty write {@code 100 Continue} itself, which would overtake the answers to
     * earlier pipelined requests: when the body will be accepted, asks the
     * {@link HttpRequestHandler} for it with {@link ContinueRequested} and aggregates the body
     * when it comes; when it will not, lets {@link #isContentLengthInvalid} route the request to
     * {@link #handleOversizedMessage} and its JSON refusal.
     */
    @Override
    protected @Nullable Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        if (refusedBeforeBody(start)) {
            return null;
        }
        Object continueResponse = super.newContinueResponse(start, maxContentLength, pipeline);
        if (continueResponse != null) {
            ReferenceCountUtil.release(continueResponse);
            requireNonNull(context, "context").fireUserEventTriggered(ContinueRequested.INSTANCE);
        }
        return null;
    }

    @Override
    protected boolean isContentLengthInvalid(HttpMessage start, int maxContentLength) {
        return refusedBeforeBody(start) || super.isContentLengthInvalid(start, maxContentLength);
    }

    private boolean refusedBeforeBody(HttpMessage start) {
        return isUnsupportedExpectation(start)
                || HttpUtil.is100ContinueExpected(start) && HttpUtil.getContentLength(start, -1L) > maxBodyBytes;
    }

    /** An {@code Expect} header other than {@code 100-continue} on an HTTP/1.1 request (as Netty decides, privately). */
    private static boolean isUnsupportedExpectation(HttpMessage message) {
        String expect = message.headers().get(HttpHeaderNames.EXPECT);
        return message instanceof HttpRequest && message.protocolVersion().compareTo(HttpVersion.HTTP_1_1) >= 0
                && expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        GatewayResponse error = isUnsupportedExpectation(oversized)
                ? GatewayResponse.error(417, "Expect: '" + oversized.headers().get(HttpHeaderNames.EXPECT)
                        + "' (expected: 100-continue or none)")
                : GatewayResponse.error(413, "body: over " + maxBodyBytes + " bytes (expected: at most "
                        + maxBodyBytes + ")");
        boolean streaming = oversized instanceof FullHttpMessage;
        boolean awaitsContinue = !streaming && HttpUtil.is100ContinueExpected(oversized);
        if (awaitsContinue) {
            // The client holds its body back: tell the decoder to expect the next request instead (as Netty does).
            ctx.pipeline().fireUserEventTriggered(HttpExpectationFailedEvent.INSTANCE);
        }
        // After an unknown expectation the body may or may not follow, so the connection cannot be reused.
        boolean close = streaming || isUnsupportedExpectation(oversized)
                || !awaitsContinue && !HttpUtil.isKeepAlive(oversized);
        discarding = !close && !awaitsContinue && !streaming;
        ctx.fireUserEventTriggered(new RefusedRequest(error, close));
    }
}
