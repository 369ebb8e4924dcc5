package io.neptune.examples.gateway.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Aggregates a request and its body into one {@code FullHttpRequest}, refusing bodies over the
 * limit with 413 and {@code {"error": ...}} (Netty's own aggregator answers with an empty body).
 * Like Netty's, it keeps a keep-alive connection open and discards the rest of the body when the
 * client announced the length up front, and closes it when the body was already streaming.
 *
 * <p>Thread-safety: confined to its channel's event loop.
 */
final class BoundedAggregatorHandler extends HttpObjectAggregator {
    private final int maxBodyBytes;

    BoundedAggregatorHandler(int maxBodyBytes) {
        super(maxBodyBytes);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        GatewayResponse error = GatewayResponse.error(413, "body: over " + maxBodyBytes + " bytes (expected: at most "
                + maxBodyBytes + ")");
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, Unpooled.wrappedBuffer(error.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, error.contentType());
        HttpUtil.setContentLength(response, error.body().length);
        boolean close = oversized instanceof FullHttpMessage
                || !HttpUtil.is100ContinueExpected(oversized) && !HttpUtil.isKeepAlive(oversized);
        if (close) {
            HttpUtil.setKeepAlive(response, false);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
    }
}
