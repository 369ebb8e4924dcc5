package io.neptune.server.cli;

import io.neptune.server.ClusterAdmin;
import io.neptune.server.NeptuneNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code admin remove-replica}: one run (one admin node, one join) removes a node's replicas from one,
 * several or all partitions of a service, one partition after the other.
 */
@Command(name = "remove-replica", mixinStandardHelpOptions = true,
        description = {"Make a node stop hosting partitions (majority mode): for each, the primary commits the"
                + " replica set without it, then it closes its replica; its files stay on disk.",
                "PARTITION is one partition, a comma-separated list (0,3,5) or all (every partition of SERVICE"
                + " that NODE hosts a replica of): one run removes NODE from each in turn, one line per"
                + " partition, then a summary; a list naming a partition NODE does not host changes nothing."})
final class RemoveReplicaCommand implements Callable<Integer> {
    /** How long one partition's change may take, as for the single-partition command. */
    private static final long SECONDS = 60;

    @Mixin
    AdminCommand.Target target;

    @Parameters(index = "0", paramLabel = "SERVICE")
    String service;

    @Parameters(index = "1", paramLabel = "PARTITION", converter = PartitionSelection.Converter.class,
            description = "A partition, a comma-separated list of different partitions, or all.")
    PartitionSelection partitions;

    @Parameters(index = "2", paramLabel = "NODE", description = "The node whose replicas of the partitions go.")
    String nodeId;

    @Override
    public Integer call() throws Exception {
        try (NeptuneNode node = target.join()) {
            if (partitions.single()) {
                // the command as it always was: the primary checks, which also removes a gone node's voter
                System.out.println(remove(node.admin(), partitions.listed().get(0)));
                return 0;
            }
            AdminCommand.awaitNode(target, node, nodeId);
            boolean known = node.knownNodes().stream().anyMatch(n -> n.value().equals(nodeId));
            List<Integer> chosen = partitions.resolve(service, nodeId, known, node.admin().announcedReplicas());
            if (chosen.isEmpty()) {
                System.out.println(nodeId + " hosts no replica of " + service + ": nothing to remove");
                return 0;
            }
            List<Integer> failed = new ArrayList<>();
            for (int partition : chosen) {
                try {
                    System.out.println(remove(node.admin(), partition));
                } catch (ExecutionException e) {
                    failed.add(partition);
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    System.out.println("FAILED " + service + "#" + partition + ": " + cause.getMessage());
                } catch (TimeoutException e) {
                    failed.add(partition);
                    System.out.println("FAILED " + service + "#" + partition + ": no answer within " + SECONDS
                            + " s");
                }
            }
            int done = chosen.size() - failed.size();
            if (failed.isEmpty()) {
                System.out.println("removed " + nodeId + " from " + done + " partitions of " + service + ": "
                        + chosen);
                return 0;
            }
            System.out.println("FAILED: removed " + nodeId + " from " + done + " of " + chosen.size()
                    + " partitions of " + service + "; failed: " + failed + " (admin replicas shows whether a"
                    + " change took effect; remove-replica " + service + " all " + nodeId + " again does what is left)");
            return 2;
        }
    }

    /** One partition, exactly as the single-partition command does it. */
    private String remove(ClusterAdmin admin, int partition) throws Exception {
        return AdminCommand.whileNoPrimaryIsHeard(target, () -> admin.removeReplica(service, partition, nodeId),
                SECONDS);
    }
}
