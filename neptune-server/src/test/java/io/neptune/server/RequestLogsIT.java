package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ReplicaRole;
import io.neptune.server.LoggingTestService.Note;
import io.neptune.server.LoggingTestService.Noted;
import io.neptune.server.internal.logging.RecordingLogAppender;
import io.neptune.server.internal.logging.RecordingLogAppender.Line;
import io.neptune.server.internal.logging.RequestMdc;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A service's own log lines, written while a node serves a request, say which node, service,
 * partition and request they belong to, with no help from the service (docs/OPERATIONS.md, Logs):
 * two replicas and a node hosting nothing that calls them over TCP, all in this JVM.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RequestLogsIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aReadLoggedByTheServiceCarriesTheNodeServicePartitionAndRequestId() {
        try (MiniCluster cluster = replicas(); RecordingLogAppender log = record()) {
            Noted noted = cluster.node(2).client().call(NeptuneHandle.create(), "logged", 1, "note", AccessMode.READ,
                    new Note("r1"), Noted.class);
            assertThat(noted.text()).isEqualTo("r1");

            List<Line> lines = log.lines("noted r1");
            assertThat(lines).hasSize(1);
            Line line = lines.get(0);
            assertThat(line.mdc()).as("the MDC of %s", line)
                    .containsEntry(RequestMdc.SERVICE, "logged")
                    .containsEntry(RequestMdc.PARTITION, "1")
                    .containsKeys(RequestMdc.NODE, RequestMdc.REQUEST_ID)
                    .doesNotContainKey(RequestMdc.TRACE_ID); // a read has no request id of its own
            assertThat(line.mdc().get(RequestMdc.NODE)).isIn("node-0", "node-1");
            assertThat(line.mdc().get(RequestMdc.REQUEST_ID)).matches("[0-9]+");
            assertThat(line.thread()).as("run by a worker of the service").contains("-logged-");
        }
    }

    @Test
    void aReplicatedWriteLoggedOnEveryReplicaCarriesTheSameTraceIdThere() {
        try (MiniCluster cluster = replicas(); RecordingLogAppender log = record()) {
            cluster.node(2).client().call(NeptuneHandle.create(), "logged", 0, "add", AccessMode.WRITE,
                    new Note("w1"), Noted.class);

            MiniCluster.await("both replicas to apply w1", WAIT, () -> log.lines("added w1").size() == 2);
            List<Line> lines = log.lines("added w1");
            assertThat(lines).allSatisfy(line -> assertThat(line.mdc()).as("the MDC of %s", line)
                    .containsEntry(RequestMdc.SERVICE, "logged")
                    .containsEntry(RequestMdc.PARTITION, "0")
                    .doesNotContainKey(RequestMdc.REQUEST_ID)); // applied from the log: no connection's id
            assertThat(lines.stream().map(line -> line.mdc().get(RequestMdc.NODE)).collect(Collectors.toSet()))
                    .isEqualTo(Set.of("node-0", "node-1"));
            Set<String> traceIds = lines.stream().map(line -> line.mdc().get(RequestMdc.TRACE_ID))
                    .collect(Collectors.toSet());
            assertThat(traceIds).as("one write, one id on every replica").hasSize(1);
            assertThat(traceIds.iterator().next()).matches("[0-9a-f]{32}");
        }
    }

    /** Two replicas of the logged service and a node that hosts nothing (index 2), each partition with a primary. */
    private static MiniCluster replicas() {
        MiniCluster cluster = MiniCluster.start(0, b -> b);
        try {
            HostingConfig hosting = HostingConfig.builder().replicas(2).build();
            cluster.add("node-0", ClientConfig.defaults(), b -> b.host(new LoggingTestService(), hosting));
            cluster.add("node-1", ClientConfig.defaults(), b -> b.host(new LoggingTestService(), hosting));
            NeptuneNode caller = cluster.add("caller", ClientConfig.defaults(), b -> b);
            for (int partition = 0; partition < 2; partition++) {
                int p = partition;
                MiniCluster.await("a primary of logged#" + p + " and a secondary", WAIT, () -> Set.copyOf(
                        caller.replicaRoles("logged", p).values()).equals(Set.of(ReplicaRole.PRIMARY,
                        ReplicaRole.SECONDARY)));
            }
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static RecordingLogAppender record() {
        return RecordingLogAppender.attach(LoggingTestService.class.getName());
    }
}
