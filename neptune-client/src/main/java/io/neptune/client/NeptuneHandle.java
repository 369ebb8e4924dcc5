package io.neptune.client;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A client session: remembers the highest partition version each call of this session has seen,
 * so later calls can ask for at least that version (progressive version delivery, DESIGN §6.4).
 *
 * <p>Thread-safety: thread-safe; a handle may be shared by the threads serving one user.
 */
public final class NeptuneHandle {
    private final ConcurrentHashMap<String, Long> versions = new ConcurrentHashMap<>();

    private NeptuneHandle() {}

    /** Creates a new, empty session. */
    public static NeptuneHandle create() {
        return new NeptuneHandle();
    }

    /** The highest version of {@code service#partition} this session has seen; 0 if none. */
    public long version(String service, int partition) {
        if (versions.isEmpty()) {
            return 0; // a session that has seen no version (unreplicated services): no key to build per call
        }
        return versions.getOrDefault(key(service, partition), 0L);
    }

    /** Records that a call of this session saw {@code version} of {@code service#partition}. */
    public void observe(String service, int partition, long version) {
        if (version > 0) {
            versions.merge(key(service, partition), version, Math::max);
        }
    }

    private static String key(String service, int partition) {
        return service + '#' + partition;
    }

    @Override
    public String toString() {
        return "NeptuneHandle" + versions;
    }
}
