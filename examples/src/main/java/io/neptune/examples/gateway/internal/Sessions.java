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
 * The gateway's sessions: one {@link NeptuneHandle} per session id.
 *
 * <p>A session id seen once (one the gateway just issued, or one a program chose and sent for the
 * first time) waits in a small <em>pending</em> area; the second request naming it moves it to
 * the <em>confirmed</em> table of at most {@code capacity} sessions. So requests that never send
 * their id back (scripts without cookies, scanners) churn only the pending area and cannot push
 * real users out. Both areas forget the session idle longest first (least recently used); a
 * forgotten user starts a fresh handle, which only weakens progressive version delivery for that
 * user, never correctness.
 *
 * <p>Thread-safety: thread-safe; every method synchronizes on {@code lock}.
 */
public final class Sessions {
    /** Name of the session cookie. */
    public static final String COOKIE = "neptune-session";
    /** Name of the session header, an alternative to the cookie for programs. */
    public static final String HEADER = "X-Neptune-Session";
    /** Most sessions waiting for their second request, whatever the capacity. */
    public static final int MAX_PENDING = 1024;

    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9_-]{8,64}");

    private final SecureRandom random = new SecureRandom();
    private final Object lock = new Object();
    private final Map<String, NeptuneHandle> confirmed;
    private final Map<String, NeptuneHandle> pending;

    /**
     * A session as resolved for one request.
     *
     * @param id the session id
     * @param handle its handle
     * @param issued whether the gateway just created the id (the response must carry it)
     */
    public record Session(String id, NeptuneHandle handle, boolean issued) {}

    /** Creates an empty session table remembering at most {@code capacity} confirmed sessions. */
    public Sessions(int capacity) {
        this.confirmed = leastRecentlyUsed(capacity);
        this.pending = leastRecentlyUsed(Math.min(capacity, MAX_PENDING));
    }

    private static Map<String, NeptuneHandle> leastRecentlyUsed(int capacity) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, NeptuneHandle> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * The session named by the cookie or, if the cookie is absent or malformed, by the header; a
     * new session with a fresh random id (to be sent back) if neither names a well-formed one.
     */
    public Session resolve(@Nullable String cookie, @Nullable String header) {
        Optional<String> presented = valid(cookie).or(() -> valid(header));
        synchronized (lock) {
            if (presented.isEmpty()) {
                String id = newId();
                NeptuneHandle handle = NeptuneHandle.create();
                pending.put(id, handle);
                return new Session(id, handle, true);
            }
            String id = presented.get();
            NeptuneHandle handle = confirmed.get(id);
            if (handle == null) {
                handle = pending.remove(id);
                if (handle != null) {
                    confirmed.put(id, handle);
                } else {
                    handle = NeptuneHandle.create();
                    pending.put(id, handle);
                }
            }
            return new Session(id, handle, false);
        }
    }

    private static Optional<String> valid(@Nullable String id) {
        return id != null && VALID_ID.matcher(id).matches() ? Optional.of(id) : Optional.empty();
    }

    /** Confirmed sessions currently remembered. */
    public int size() {
        synchronized (lock) {
            return confirmed.size();
        }
    }

    /** Sessions seen once and waiting for their second request. */
    public int pending() {
        synchronized (lock) {
            return pending.size();
        }
    }

    private String newId() {
        byte[] bytes = new byte[18];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
