package io.neptune.server.internal.security;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.internal.tls.TlsContext;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.OptionalSslHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS stage of the request port's connections, by the node's {@link TlsMode}, and the
 * {@link Caller} each connection speaks for: with TLS {@code required}, a connection that does not
 * complete a handshake is closed before any of its bytes reach the frame decoder; with
 * {@code permissive}, a connection whose first bytes are not a TLS record is plaintext and
 * {@link Caller#TRUSTED}; with {@code disabled}, every connection is. Refused connections are
 * counted by reason.
 *
 * <p>Thread-safety: thread-safe; the handlers run on each connection's event loop.
 */
public final class ConnectionSecurity {
    private static final Logger logger = LoggerFactory.getLogger(ConnectionSecurity.class);

    private static final AttributeKey<Caller> CALLER = AttributeKey.valueOf("neptune.caller");

    /** The name of the TLS stage in a pipeline. */
    public static final String TLS = "tls";

    private final NodeId node;
    private final TlsMode mode;
    private final @Nullable TlsContext tls;
    private final LongAdder refusedPlaintext = new LongAdder();
    private final LongAdder refusedHandshakes = new LongAdder();
    private final Identify identify = new Identify();

    /**
     * Security for {@code node}'s request port as {@code config} says.
     *
     * @throws io.neptune.core.ConfigException if a TLS file cannot be loaded
     */
    public ConnectionSecurity(NodeId node, SecurityConfig config) {
        this.node = requireNonNull(node, "node");
        this.mode = config.tls();
        this.tls = TlsContext.server(config).orElse(null);
    }

    /** Puts the TLS stage first in {@code channel}'s pipeline, or marks the channel trusted where TLS is off. */
    public void install(Channel channel) {
        TlsContext context = tls;
        if (context == null) {
            channel.attr(CALLER).set(Caller.TRUSTED);
            return;
        }
        ChannelHandler stage = mode == TlsMode.REQUIRED ? context.newServerHandler(channel.alloc())
                : new PlaintextOrTls(context);
        channel.pipeline().addFirst(TLS, stage);
        channel.pipeline().addAfter(TLS, "identify", identify);
    }

    /**
     * Who sends on {@code channel}: set once its handshake completed (or at once where it is
     * plaintext and trusted); {@link Caller#ANONYMOUS} before that.
     */
    public static Caller caller(Channel channel) {
        Caller caller = channel.attr(CALLER).get();
        return caller != null ? caller : Caller.ANONYMOUS;
    }

    /** Connections closed because they spoke plaintext where TLS is required. */
    public long refusedPlaintext() {
        return refusedPlaintext.sum();
    }

    /** Connections closed because their TLS handshake failed or did not finish in time. */
    public long refusedHandshakes() {
        return refusedHandshakes.sum();
    }

    /** Whether the port accepts TLS. */
    public boolean acceptsTls() {
        return tls != null;
    }

    /** Sorts out TLS from plaintext by the first bytes ({@code permissive}). */
    private final class PlaintextOrTls extends OptionalSslHandler {
        private final TlsContext context;

        PlaintextOrTls(TlsContext context) {
            super(context.current());
            this.context = context;
        }

        @Override
        protected @Nullable String newSslHandlerName() {
            return TLS;
        }

        @Override
        protected SslHandler newSslHandler(ChannelHandlerContext ctx, SslContext unused) {
            return context.newServerHandler(ctx.alloc());
        }

        @Override
        protected @Nullable ChannelHandler newNonSslHandler(ChannelHandlerContext ctx) {
            ctx.channel().attr(CALLER).set(Caller.TRUSTED);
            ctx.pipeline().remove(identify);
            return null;
        }
    }

    /** Reads the caller off a finished handshake; closes connections that fail one. */
    @Sharable
    private final class Identify extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof SslHandshakeCompletionEvent done) {
                if (done.isSuccess()) {
                    SslHandler handler = ctx.pipeline().get(SslHandler.class);
                    ctx.channel().attr(CALLER).set(handler == null ? Caller.ANONYMOUS
                            : TlsContext.peer(handler).map(Caller::of).orElse(Caller.ANONYMOUS));
                    ctx.pipeline().remove(this);
                } else {
                    refused(ctx, done.cause());
                }
                return;
            }
            super.userEventTriggered(ctx, event);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
            if (cause instanceof NotSslRecordException || cause instanceof SSLException
                    || cause instanceof DecoderException && cause.getCause() instanceof SSLException) {
                refused(ctx, cause);
                return;
            }
            super.exceptionCaught(ctx, cause);
        }

        private void refused(ChannelHandlerContext ctx, Throwable cause) {
            if (ctx.channel().attr(CALLER).setIfAbsent(Caller.ANONYMOUS) != null) {
                return; // a failed handshake reports itself twice: as an event and as an exception
            }
            Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            if (root instanceof NotSslRecordException) {
                refusedPlaintext.increment();
                logger.debug("{}: NEP-SEC-010 closed a plaintext connection from {}: TLS is required", node,
                        ctx.channel().remoteAddress());
            } else {
                refusedHandshakes.increment();
                logger.debug("{}: NEP-SEC-011 closed a connection from {}: TLS handshake failed: {}", node,
                        ctx.channel().remoteAddress(), root.toString());
            }
            ctx.close();
        }
    }
}
