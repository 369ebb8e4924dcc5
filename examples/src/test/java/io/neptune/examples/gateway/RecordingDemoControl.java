package io.neptune.examples.gateway;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link DemoControl} that records the actions asked of it and does nothing else. */
final class RecordingDemoControl implements DemoControl {
    private final List<String> nodes;
    final List<String> actions = new CopyOnWriteArrayList<>();

    RecordingDemoControl(List<String> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    @Override
    public List<String> nodes() {
        return nodes;
    }

    @Override
    public void kill(String node) {
        actions.add("kill " + node);
    }

    @Override
    public void start(String node) {
        actions.add("start " + node);
    }

    @Override
    public long pid(String node) {
        return -1;
    }
}
