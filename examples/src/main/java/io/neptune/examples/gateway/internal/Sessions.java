package io.neptune.examples.gateway.internal;

import io.neptune.client.NeptuneHandle;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's sessions: one {@link NeptuneHandle} per session id, at most {@code capacity} of
 * them; the least recently used is forgotten first (its user then starts a fresh handle, which only
 * weakens progressive version delivery for that user, never correctness).
 *
 * <p>Thread-safety: thread-safe; every method synchronizes on the map.
 */
public final class Sessions {
    /** Name of the session cookie. */
    public static final String COOKIE = "neptune-session";
    /** Name of the session header, an alternative to the cookie for programs. */
    public static final String HEADER = "X-Neptune-Session";

    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9_-]{8,64}");

    private final SecureRandom random = new SecureRandom();
    private final Map<String, NeptuneHandle> handles;

    /**
     * A session as resolved for one request.
     *
     * @param id the session id
     * @param handle its handle
     * @param issued whether the gateway just created the id (the response must carry it)
     */
    public record Session(String id, NeptuneHandle handle, boolean issued) {}

    /** Creates an empty session table remembering at most {@code capacity} sessions. */
    public Sessions(int capacity) {
        this.handles = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, NeptuneHandle> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * The session named by {@code id} (from the cookie or header), creating its handle if unknown;
     * a new session with a fresh random id if {@code id} is absent or malformed.
     */
    public Session resolve(Optional<String> id) {
        Optional<String> valid = id.filter(s -> VALID_ID.matcher(s).matches());
        String sessionId = valid.orElseGet(this::newId);
        synchronized (handles) {
            return new Session(sessionId, handles.computeIfAbsent(sessionId, k -> NeptuneHandle.create()),
                    valid.isEmpty());
        }
    }

    /** Picks the session id from a cookie value and a header value; the cookie wins. */
    public static Optional<String> idOf(@Nullable String cookie, @Nullable String header) {
        if (cookie != null && !cookie.isEmpty()) {
            return Optional.of(cookie);
        }
        return header == null || header.isEmpty() ? Optional.empty() : Optional.of(header);
    }

    /** Sessions currently remembered. */
    public int size() {
        synchronized (handles) {
            return handles.size();
        }
    }

    private String newId() {
        byte[] bytes = new byte[18];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
