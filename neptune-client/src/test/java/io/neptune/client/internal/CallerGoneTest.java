package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.context.Context;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CallerGoneTest {
    private final List<String> told = new CopyOnWriteArrayList<>();

    @Test
    void aWatcherIsToldOnceWhyTheCallerWent() {
        CallerGone caller = new CallerGone();
        caller.watch(told::add);

        caller.signal("its connection closed");
        caller.signal("the client cancelled the stream");

        assertThat(told).containsExactly("its connection closed");
        assertThat(caller.reason()).isEqualTo("its connection closed");
    }

    @Test
    void aWatchStartedAfterTheCallerWentIsToldAtOnce() {
        CallerGone caller = new CallerGone();
        caller.signal("its connection closed");

        caller.watch(told::add);

        assertThat(told).containsExactly("its connection closed");
    }

    @Test
    void aClosedWatchIsNotTold() {
        CallerGone caller = new CallerGone();
        CallerGone.Watch watch = caller.watch(told::add);

        watch.close();
        caller.signal("its connection closed");

        assertThat(told).isEmpty();
    }

    @Test
    void theSignalTravelsInAContextAndAContextWithoutOneCannotGo() {
        CallerGone caller = new CallerGone();

        assertThat(CallerGone.in(caller.into(Context.root()))).isSameAs(caller);
        assertThat(CallerGone.in(Context.root())).isSameAs(CallerGone.NEVER);
        CallerGone.NEVER.watch(told::add);
        assertThatThrownBy(() -> CallerGone.NEVER.signal("its connection closed"))
                .isInstanceOf(IllegalStateException.class);
        assertThat(told).isEmpty();
        assertThat(CallerGone.NEVER.reason()).isNull();
    }
}
