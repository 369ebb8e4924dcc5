package io.neptune.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NeptuneException;
import io.neptune.core.ReplicaRole;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The PARTITION argument of {@code admin remove-replica}: one partition, a list, or {@code all}. */
class PartitionSelectionTest {
    /** kv's partitions 0 to 3 on node-0 and node-1; node-3 hosts 1 and 3; other-service's 0 on node-3 too. */
    private static final List<AnnouncedReplica> ANNOUNCED = announced();

    @Test
    void oneNumberIsOnePartitionAsTheCommandAlwaysTook() {
        PartitionSelection selection = PartitionSelection.parse(" 3 ");

        assertThat(selection.single()).isTrue();
        assertThat(selection.listed()).containsExactly(3);
    }

    @Test
    void aCommaSeparatedListKeepsItsOrderAndIsNoSinglePartition() {
        PartitionSelection selection = PartitionSelection.parse("5, 0,3");

        assertThat(selection.single()).isFalse();
        assertThat(selection.all()).isFalse();
        assertThat(selection.listed()).containsExactly(5, 0, 3);
    }

    @Test
    void allStandsForEveryPartitionAndListsNone() {
        PartitionSelection selection = PartitionSelection.parse("all");

        assertThat(selection.all()).isTrue();
        assertThat(selection.single()).isFalse();
        assertThat(selection.listed()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "3,3     | partition 3 is listed twice",
        "-1      | partition -1 (expected: >= 0)",
        "2,-1    | partition -1 (expected: >= 0)",
        "all,3   | all stands alone, not in a list",
        "3,all   | all stands alone, not in a list",
        "x       | 'x' is no partition",
        "1,,2    | has an empty entry",
        "ALL     | 'ALL' is no partition",
    })
    void aBadPartitionArgumentIsAUsageErrorThatSaysWhatIsWrongBeforeJoiningAnything(String argument,
            String problem) {
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new NeptuneCli()).setErr(new PrintWriter(err, true));

        int status = NeptuneCli.execute(commandLine, "admin", "remove-replica", "kv", argument, "node-3",
                "--cluster", "nobody-" + ProcessHandle.current().pid(), "--wait", "1s");

        assertThat(status).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("PARTITION", problem).doesNotContain("heard no node");
    }

    @Test
    void allIsEveryPartitionOfTheServiceTheNodeAnnouncesAReplicaOf() {
        assertThat(PartitionSelection.parse("all").resolve("kv", "node-3", true, ANNOUNCED)).containsExactly(1, 3);
    }

    @Test
    void allOfANodeThatHostsNothingOfTheServiceAnyMoreIsNoPartition() {
        assertThat(PartitionSelection.parse("all").resolve("kv", "node-9", true, ANNOUNCED)).isEmpty();
    }

    @Test
    void aListOfPartitionsTheNodeHostsIsTakenInItsOrder() {
        assertThat(PartitionSelection.parse("3,1").resolve("kv", "node-3", true, ANNOUNCED)).containsExactly(3, 1);
    }

    @Test
    void aListWithAPartitionTheNodeDoesNotHostIsRefusedAsAWholeNamingIt() {
        assertThatThrownBy(() -> PartitionSelection.parse("1,2,3").resolve("kv", "node-3", true, ANNOUNCED))
                .isInstanceOf(NeptuneException.class)
                .hasMessageStartingWith("NEP-PLACE-005 node-3 hosts no replica of kv partition [2]")
                .hasMessageContaining("node-3 hosts [1, 3]", "nothing changed, on no partition");
    }

    @Test
    void aListWithAPartitionTheServiceDoesNotHaveIsRefusedAsAWholeNamingIt() {
        assertThatThrownBy(() -> PartitionSelection.parse("1,9").resolve("kv", "node-3", true, ANNOUNCED))
                .isInstanceOf(NeptuneException.class)
                .hasMessageStartingWith("NEP-PLACE-005 kv has no partition [9] in the yellow page (it has [0, 1, 2, 3])")
                .hasMessageContaining("nothing changed, on no partition");
    }

    @Test
    void aServiceNoNodeHostsIsRefused() {
        assertThatThrownBy(() -> PartitionSelection.parse("all").resolve("kvv", "node-3", true, ANNOUNCED))
                .isInstanceOf(NeptuneException.class)
                .hasMessage("NEP-PLACE-005 no node in the yellow page hosts a partition of service 'kvv': nothing"
                        + " changed");
    }

    @Test
    void aListForANodeNotInTheYellowPageIsLeftToEachPartitionsPrimaryAsForOnePartition() {
        assertThat(PartitionSelection.parse("2,0").resolve("kv", "node-gone", false, ANNOUNCED)).containsExactly(2, 0);
    }

    @Test
    void allForANodeNotInTheYellowPageIsRefusedSinceWhatItHostsIsUnknown() {
        assertThatThrownBy(() -> PartitionSelection.parse("all").resolve("kv", "node-gone", false, ANNOUNCED))
                .isInstanceOf(NeptuneException.class)
                .hasMessageContaining("node-gone is not in the yellow page", "name them (PARTITION 0,3,5)");
    }

    private static List<AnnouncedReplica> announced() {
        List<AnnouncedReplica> replicas = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            replicas.add(new AnnouncedReplica("kv", p, "node-0", ReplicaRole.PRIMARY, 0, 10));
            replicas.add(new AnnouncedReplica("kv", p, "node-1", ReplicaRole.SECONDARY, 0, 10));
        }
        replicas.add(new AnnouncedReplica("kv", 1, "node-3", ReplicaRole.SECONDARY, 0, 10));
        replicas.add(new AnnouncedReplica("kv", 3, "node-3", ReplicaRole.PRIMARY, 0, 10));
        replicas.add(new AnnouncedReplica("other-service", 0, "node-3", ReplicaRole.PRIMARY, 0, 10));
        return replicas;
    }
}
