package io.neptune.server.internal.security;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Principal.Role;
import io.neptune.server.SchedulingConfig;
import java.util.Locale;
import java.util.Map;

/**
 * The service class a caller's calls run in when the node binds callers to classes
 * ({@link SchedulingConfig#callerClasses()}): a client cannot buy itself a better class by naming
 * one. A principal's own URI wins over its role; a TLS caller without a certificate is bound by
 * {@value SchedulingConfig#ANONYMOUS}, else by {@code client}; a plaintext (trusted) caller keeps
 * the class it names.
 *
 * <p>Thread-safety: immutable.
 */
public final class CallerClasses {
    private final Map<String, String> byCaller;

    /** Binds callers as {@code byCaller} says (keys: principal URIs and role names). */
    public CallerClasses(Map<String, String> byCaller) {
        this.byCaller = Map.copyOf(requireNonNull(byCaller, "byCaller"));
    }

    /** The class a call from {@code caller} that named {@code requested} runs in. */
    public String classOf(Caller caller, String requested) {
        if (byCaller.isEmpty()) {
            return requested;
        }
        if (caller instanceof Caller.Authenticated authenticated) {
            String bound = byCaller.get(authenticated.identity().uri());
            if (bound != null) {
                return bound;
            }
            return byCaller.getOrDefault(roleName(authenticated.identity().role()), requested);
        }
        if (caller instanceof Caller.Anonymous) {
            String bound = byCaller.get(SchedulingConfig.ANONYMOUS);
            if (bound != null) {
                return bound;
            }
            return byCaller.getOrDefault(roleName(Role.CLIENT), requested);
        }
        return requested;
    }

    private static String roleName(Role role) {
        return role.name().toLowerCase(Locale.ROOT);
    }
}
