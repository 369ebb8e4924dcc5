package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ServiceClass;
import io.neptune.examples.gateway.RequestClassifier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Who sent a request, as {@link AccessPolicy} established it: nobody in particular (no
 * {@code Authorization} header), the admin (the admin token), or a user (a user token, bound to a
 * service class).
 *
 * @param name how logs and error messages name the caller; never the token
 * @param admin whether the caller may change the cluster ({@code POST /admin/...})
 * @param boundClass the service class every request of this caller runs in, or null when the
 *     classifier decides (the admin) or the default class applies (anonymous)
 */
public record Caller(String name, boolean admin, @Nullable String boundClass) {
    /** A caller without credentials. */
    public static final Caller ANONYMOUS = new Caller("anonymous", false, null);

    /** Checks the name and the class. */
    public Caller {
        requireNonNull(name, "name");
        if (boundClass != null) {
            ServiceClass.checkName(boundClass);
        }
    }

    /** Whether the caller sent no credentials. */
    public boolean isAnonymous() {
        return this.equals(ANONYMOUS);
    }

    /**
     * The service class of a request from this caller: its bound class if it has one; what
     * {@code classifier} reads from the headers for the admin; else the default class, whatever the
     * headers say (an anonymous caller does not get to pick its own class).
     */
    public String serviceClass(RequestClassifier classifier, Function<String, String> headers) {
        if (boundClass != null) {
            return boundClass;
        }
        return admin ? classifier.classify(headers) : ServiceClass.DEFAULT_NAME;
    }

    @Override
    public String toString() {
        return name;
    }
}
