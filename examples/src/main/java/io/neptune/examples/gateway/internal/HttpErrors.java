package io.neptune.examples.gateway.internal;

import io.neptune.core.DeadlineExceededException;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.NeptuneException;
import io.neptune.core.NoMajorityException;
import io.neptune.core.NoReplicaAvailableException;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.OverloadedException;
import io.neptune.core.RemoteMethodException;
import io.neptune.core.RequestDroppedException;
import io.neptune.core.UnknownPartitionException;
import io.neptune.core.UnknownServiceClassException;
import io.neptune.core.UnknownServiceException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps failures to HTTP answers {@code {"error": "..."}}:
 *
 * <ul>
 *   <li>{@link HttpStatusException}: its status;
 *   <li>400: {@link IllegalArgumentException} (a request record's validation),
 *       {@link InvalidRequestException}, {@link UnknownPartitionException},
 *       {@link UnknownServiceClassException}, and a {@link RemoteMethodException} whose method threw
 *       {@code IllegalArgumentException};
 *   <li>503: {@link NoReplicaAvailableException}, {@link OverloadedException}, {@link NoMajorityException},
 *       {@link UnknownServiceException} (no node hosts the service), {@link RequestDroppedException}
 *       (the node's scheduler dropped it under overload): nothing ran;
 *   <li>504: {@link DeadlineExceededException}, and {@link OutcomeUnknownException} (the write may
 *       have run: its message says so);
 *   <li>502: any other {@link NeptuneException} (the cluster failed the call);
 *   <li>500: anything else (a gateway bug; logged).
 * </ul>
 */
public final class HttpErrors {
    private static final Logger logger = LoggerFactory.getLogger(HttpErrors.class);
    private static final String REMOTE_ILLEGAL_ARGUMENT = IllegalArgumentException.class.getName() + ": ";

    private HttpErrors() {}

    /**
     * The failure of a scatter over {@code service}'s partitions of which none answered
     * ({@code failures} not empty): a deadline or a bad request (such as an unknown service class)
     * as itself, since it says more; anything else as 503 naming the first partition's failure.
     */
    public static NeptuneException noPartitionAnswered(String service, java.util.Map<Integer, NeptuneException> failures) {
        NeptuneException first = failures.values().iterator().next();
        int status = response(first).status();
        if (status == 504 || status == 400 && !(first instanceof UnknownPartitionException)) {
            return first;
        }
        return new HttpStatusException(503, "no partition of " + service + " answered: " + first.getMessage());
    }

    /** The response for {@code failure}, unwrapping {@link CompletionException} and {@link ExecutionException}. */
    public static GatewayResponse response(Throwable failure) {
        Throwable e = failure;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (e instanceof HttpStatusException status) {
            return GatewayResponse.error(status.status(), message);
        }
        if (e instanceof IllegalArgumentException || e instanceof InvalidRequestException
                || e instanceof UnknownPartitionException || e instanceof UnknownServiceClassException) {
            return GatewayResponse.error(400, message);
        }
        if (e instanceof RemoteMethodException remote) {
            if (remote.remoteMessage().startsWith(REMOTE_ILLEGAL_ARGUMENT)) {
                return GatewayResponse.error(400, remote.remoteMessage().substring(REMOTE_ILLEGAL_ARGUMENT.length()));
            }
            return GatewayResponse.error(502, message);
        }
        if (e instanceof NoReplicaAvailableException || e instanceof OverloadedException
                || e instanceof NoMajorityException || e instanceof UnknownServiceException
                || e instanceof RequestDroppedException) {
            return GatewayResponse.error(503, message);
        }
        if (e instanceof DeadlineExceededException || e instanceof OutcomeUnknownException) {
            return GatewayResponse.error(504, message);
        }
        if (e instanceof NeptuneException) {
            return GatewayResponse.error(502, message);
        }
        logger.warn("gateway: unexpected failure", e);
        return GatewayResponse.error(500, "internal error: " + message);
    }
}
