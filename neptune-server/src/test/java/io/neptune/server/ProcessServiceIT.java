package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ClassStats;
import io.neptune.core.RemoteMethodException;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import io.neptune.server.process.ProcessTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node started from a YAML file that declares two process-backed services (one per request, one
 * warm), called by another node over TCP: answers, typed failures with the program's exit code and
 * stderr, a deadline kill, CPU time charged to the caller's service class, and no process left once
 * the node is closed.
 */
class ProcessServiceIT {
    @TempDir
    Path dir;

    private static final String SERVICES = """
            services:
              - process:
                  name: lookup
                  partitions: 2
                  timeout: 3s
                  max-processes: 2
                  environment: {NEPTUNE_TEST_TOKEN: "%1$s"}
                  command:
                    - sh
                    - -c
                    - |
                      case "$2" in
                        fail) echo "bad query: $(cat)" >&2; exit 4 ;;
                        hang) sleep 1000 & wait ;;
                        burn) awk 'BEGIN { for (i = 0; i < 3000000; i++) s += i }' ;;
                      esac
                      echo "$1 $(cat)"
                    - sh
                    - "db/part-{partition}"
                    - "{args}"
              - process:
                  name: upper
                  mode: warm
                  environment: {NEPTUNE_TEST_TOKEN: "%1$s"}
                  command:
                    - sh
                    - -c
                    - |
                      while IFS= read -r n; do
                        out=$(head -c "$n" | tr a-z A-Z)
                        printf '%%s\\n%%s' "${#out}" "$out"
                      done
            """;

    @Test
    void aProcessServiceDeclaredInConfigServesCallsOverTheNetworkAndDiesWithItsNode() throws IOException {
        String token = ProcessTable.newToken();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            Path file = dir.resolve("node.yaml");
            Files.writeString(file, "node: proc-node\nio-threads: 2\ndata-directory: " + dir.resolve("data") + "\n"
                    + "membership: {cluster: " + cluster.membership().cluster() + ", discovery-directory: "
                    + cluster.membership().discoveryDirectory() + ", announce-interval: 200ms, expiry: 2s}\n"
                    + "scheduling: {policy: yid}\n"
                    + "classes:\n  - {name: gold, deadline: 30s, share: 0.5}\n"
                    + SERVICES.formatted(token));
            NeptuneNode gateway = cluster.add("gateway", ClientConfig.defaults(), b -> b);
            try (NeptuneNode node = NodeConfigFile.load(file).toBuilder().start()) {
                ReplicatedProcesses.await(() -> !gateway.replicasOf("lookup", 1).isEmpty()
                        && !gateway.replicasOf("upper", 0).isEmpty(), Duration.ofSeconds(30),
                        "the gateway to see both process services");
                NeptuneClient client = gateway.client();
                NeptuneHandle handle = NeptuneHandle.create();

                ProcessResponse answer = client.call(handle, "lookup", 1, "run", AccessMode.READ,
                        new ProcessRequest("ACGT", List.of("ok")), ProcessResponse.class);
                assertThat(answer.output()).isEqualTo("db/part-1 ACGT\n");
                assertThat(client.call(handle, "upper", 0, "run", AccessMode.READ, ProcessRequest.of("warm hi"),
                        ProcessResponse.class).output()).isEqualTo("WARM HI");

                assertThatThrownBy(() -> client.call(handle, "lookup", 0, "run", AccessMode.READ,
                        new ProcessRequest("TTTT", List.of("fail")), ProcessResponse.class))
                        .isInstanceOf(RemoteMethodException.class)
                        .hasMessageContaining("ProcessFailedException: lookup#0: program 'sh' failed (exit code 4);"
                                + " stderr ends: bad query: TTTT");

                assertThatThrownBy(() -> client.call(handle, "lookup", 0, "run", AccessMode.READ,
                        new ProcessRequest("", List.of("hang")), ProcessResponse.class))
                        .isInstanceOf(RemoteMethodException.class)
                        .hasMessageContaining("was still running at its timeout of 3000 ms and was killed");

                ProcessResponse burnt = client.call(handle, "lookup", 1, "run", AccessMode.READ,
                        new ProcessRequest("", List.of("burn")), ProcessResponse.class,
                        CallOptions.builder().serviceClass("gold").build());
                assertThat(burnt.cpuMicros()).isGreaterThanOrEqualTo(10_000);
                ClassStats gold = node.classStats("lookup").stream().filter(c -> c.serviceClass().equals("gold"))
                        .findFirst().orElseThrow();
                // the worker only waited; what gold was charged is the program's CPU time
                assertThat(gold.usedSeconds()).isGreaterThanOrEqualTo(burnt.cpuMicros() / 1e6 * 0.9);
                assertThat(node.served()).containsEntry("lookup", 2L).containsEntry("upper", 1L);

                assertThat(ProcessTable.withToken(token)).as("the warm process lives between requests").hasSize(1);
            }
            ProcessTable.awaitNone(token);
        }
    }
}
