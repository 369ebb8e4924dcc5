package io.neptune.examples.gateway;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ServiceClass;
import java.util.Map;
import java.util.function.Function;

/**
 * Puts each HTTP request of the gateway's admin into a service class (dissertation section 4.3: the
 * gateway classifies external requests by rules the service provider gives), from its headers. The
 * class travels with every call the request makes into the cluster. A name that is not a valid
 * class name is refused with 400; a valid name that the nodes do not declare fails the call with
 * 400 too. The class of other callers comes from who they are, not from headers they can set: an
 * anonymous caller runs in the default class, a user in the class of its token
 * ({@link HttpGateway.Builder#userToken}).
 *
 * <p>Thread-safety: implementations must be thread-safe; the gateway calls them on its I/O threads.
 */
@FunctionalInterface
public interface RequestClassifier {
    /** The header {@link #byHeader()} reads. */
    String CLASS_HEADER = "X-Neptune-Class";

    /**
     * The class of a request, given a lookup of its headers (case-insensitive; null when absent);
     * {@value ServiceClass#DEFAULT_NAME} for none.
     */
    String classify(Function<String, String> headers);

    /** The class the client names in {@value #CLASS_HEADER}, else the default class: the gateway's default rule. */
    static RequestClassifier byHeader() {
        return byHeader(CLASS_HEADER);
    }

    /** The class the client names in {@code header}, else the default class. */
    static RequestClassifier byHeader(String header) {
        requireNonNull(header, "header");
        return headers -> {
            String value = headers.apply(header);
            return value == null || value.isBlank() ? ServiceClass.DEFAULT_NAME : value.trim();
        };
    }

    /**
     * The class of the user named in {@code userHeader} (as an authenticating proxy in front of the
     * gateway sets it), from {@code userClasses}; {@code fallback} for a user not in the map or a
     * request without the header. Clients cannot pick their own class with this rule. The gateway
     * applies it to the admin's requests only, so the proxy calls with the admin token.
     */
    static RequestClassifier byUser(String userHeader, Map<String, String> userClasses, String fallback) {
        requireNonNull(userHeader, "userHeader");
        Map<String, String> classes = Map.copyOf(userClasses);
        classes.values().forEach(ServiceClass::checkName);
        ServiceClass.checkName(fallback);
        return headers -> {
            String user = headers.apply(userHeader);
            return user == null ? fallback : classes.getOrDefault(user.trim(), fallback);
        };
    }
}
