package io.neptune.examples.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.NeptuneHandle;
import org.junit.jupiter.api.Test;

/** Sessions: confirmation on the second request, least-recently-used eviction, cookie/header fallback. */
class SessionsTest {
    private final Sessions sessions = new Sessions(2);

    private NeptuneHandle confirm(String id) {
        sessions.resolve(null, id);
        return sessions.resolve(null, id).handle();
    }

    @Test
    void aSessionCountsOnlyOnceItsIdComesBack() {
        Sessions.Session issued = sessions.resolve(null, null);
        assertThat(issued.issued()).isTrue();
        assertThat(sessions.size()).isZero();
        assertThat(sessions.pending()).isEqualTo(1);
        Sessions.Session back = sessions.resolve(issued.id(), null);
        assertThat(back.issued()).isFalse();
        assertThat(back.handle()).isSameAs(issued.handle());
        assertThat(sessions.size()).isEqualTo(1);
        assertThat(sessions.pending()).isZero();
    }

    @Test
    void anonymousRequestsNeverEvictAConfirmedSession() {
        NeptuneHandle kept = confirm("confirmed-1");
        for (int i = 0; i < 10_000; i++) {
            sessions.resolve(null, null);
            sessions.resolve(null, "once-only-" + i);
        }
        assertThat(sessions.size()).isEqualTo(1);
        assertThat(sessions.pending()).isEqualTo(2);
        assertThat(sessions.resolve(null, "confirmed-1").handle()).isSameAs(kept);
    }

    @Test
    void theSessionIdleLongestIsForgottenFirst() {
        NeptuneHandle a = confirm("session-a");
        NeptuneHandle b = confirm("session-b");
        assertThat(sessions.resolve("session-a", null).handle()).isSameAs(a); // a is now the most recent
        confirm("session-c");
        assertThat(sessions.resolve("session-a", null).handle()).isSameAs(a);
        assertThat(sessions.resolve("session-b", null).handle()).isNotSameAs(b);
    }

    @Test
    void aMalformedCookieFallsBackToTheHeader() {
        NeptuneHandle viaHeader = confirm("header-id-1");
        Sessions.Session resolved = sessions.resolve("bad!", "header-id-1");
        assertThat(resolved.issued()).isFalse();
        assertThat(resolved.handle()).isSameAs(viaHeader);
        assertThat(sessions.resolve("bad!", "x").issued()).isTrue();
        assertThat(sessions.resolve("cookie-id-1", "header-id-1").id()).isEqualTo("cookie-id-1");
    }
}
