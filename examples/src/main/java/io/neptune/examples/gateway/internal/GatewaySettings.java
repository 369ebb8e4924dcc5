package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.SecurityConfig;
import io.neptune.examples.gateway.RequestClassifier;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's settings, validated by {@link io.neptune.examples.gateway.HttpGateway.Builder}.
 *
 * @param bindAddress address to listen on
 * @param port TCP port; 0 picks a free one
 * @param callTimeout deadline of each call into the cluster
 * @param maxBodyBytes largest request body accepted
 * @param maxSessions confirmed sessions remembered before the least recently used is forgotten
 * @param ioThreads Netty event loop threads
 * @param idleTimeout how long a connection with nothing outstanding may stay silent before it is closed
 * @param requestTimeout how long a request may take to arrive whole from its first byte before it is
 *     answered 408 and the connection closed
 * @param classifier puts each request into a service class
 * @param blastExample a query the BLAST page offers, or null
 * @param access who may do what, and which {@code Host} names the gateway serves
 * @param security TLS of the HTTP port (HTTPS when enabled; no client certificates asked for)
 */
public record GatewaySettings(String bindAddress, int port, Duration callTimeout, int maxBodyBytes, int maxSessions,
        int ioThreads, Duration idleTimeout, Duration requestTimeout, RequestClassifier classifier, @Nullable String blastExample,
        AccessPolicy access, SecurityConfig security) {
    /** Checks the references. */
    public GatewaySettings {
        requireNonNull(bindAddress, "bindAddress");
        requireNonNull(callTimeout, "callTimeout");
        requireNonNull(idleTimeout, "idleTimeout");
        requireNonNull(requestTimeout, "requestTimeout");
        requireNonNull(classifier, "classifier");
        requireNonNull(access, "access");
        requireNonNull(security, "security");
    }
}
