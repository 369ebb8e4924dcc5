package io.neptune.server.cli;

import io.neptune.core.NeptuneException;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The PARTITION argument of {@code admin remove-replica}: one partition ({@code 3}, the command as it
 * always was), a comma-separated list of different partitions ({@code 0,3,5}), or {@code all} (every
 * partition of the service that the node hosts a replica of, as the yellow page shows it).
 *
 * @param all whether the argument was {@code all}
 * @param listed the partitions named, in the order given; empty for {@code all}
 */
record PartitionSelection(boolean all, List<Integer> listed) {
    static final String ALL = "all";
    private static final String EXPECTED = "(expected: a partition such as 3, a comma-separated list of different"
            + " partitions such as 0,3,5, or all)";

    PartitionSelection {
        listed = List.copyOf(listed);
    }

    /** Reads the argument as typed; throws {@link IllegalArgumentException} naming what is wrong with it. */
    static PartitionSelection parse(String text) {
        String trimmed = text.trim();
        if (trimmed.equals(ALL)) {
            return new PartitionSelection(true, List.of());
        }
        Set<Integer> partitions = new LinkedHashSet<>();
        for (String entry : trimmed.split(",", -1)) {
            String value = entry.trim();
            if (value.isEmpty()) {
                throw new IllegalArgumentException("'" + text + "' has an empty entry " + EXPECTED);
            }
            if (value.equals(ALL)) {
                throw new IllegalArgumentException("'" + text + "': all stands alone, not in a list " + EXPECTED);
            }
            int partition;
            try {
                partition = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "': '" + value + "' is no partition " + EXPECTED, e);
            }
            if (partition < 0) {
                throw new IllegalArgumentException("'" + text + "': partition " + partition + " (expected: >= 0)");
            }
            if (!partitions.add(partition)) {
                throw new IllegalArgumentException("'" + text + "': partition " + partition + " is listed twice "
                        + EXPECTED);
            }
        }
        return new PartitionSelection(false, new ArrayList<>(partitions));
    }

    /** Whether this is one partition: the command as it was before lists, passed on to the primary unchecked. */
    boolean single() {
        return !all && listed.size() == 1;
    }

    /**
     * The partitions of {@code service} to remove {@code node}'s replica from, all checked before anything
     * changes against the yellow page's {@code announced} replicas: {@code all} is the partitions {@code node}
     * announces a replica of (none if it hosts nothing of the service any more); a list must name only
     * partitions {@code node} hosts, else nothing runs. Of a node not in the yellow page ({@code nodeKnown}
     * false: gone, its replicas still voters) nobody knows what it hosts: a list is taken as given, each
     * partition's primary checks it as for one partition, and {@code all} is refused.
     *
     * @throws NeptuneException NEP-PLACE-005, naming the service, node or partitions that are wrong
     */
    List<Integer> resolve(String service, String node, boolean nodeKnown, List<AnnouncedReplica> announced) {
        Set<Integer> partitions = new TreeSet<>();
        Set<Integer> hosted = new TreeSet<>();
        for (AnnouncedReplica replica : announced) {
            if (replica.service().equals(service)) {
                partitions.add(replica.partition());
                if (replica.node().equals(node)) {
                    hosted.add(replica.partition());
                }
            }
        }
        if (partitions.isEmpty()) {
            throw new NeptuneException("NEP-PLACE-005 no node in the yellow page hosts a partition of service '"
                    + service + "': nothing changed");
        }
        if (!nodeKnown) {
            if (all) {
                throw new NeptuneException("NEP-PLACE-005 " + node + " is not in the yellow page, so which partitions"
                        + " of " + service + " it hosts is unknown: nothing changed; name them (PARTITION 0,3,5) to"
                        + " remove it from their voters");
            }
            return listed;
        }
        if (all) {
            return List.copyOf(hosted);
        }
        List<Integer> unknown = listed.stream().filter(p -> !partitions.contains(p)).toList();
        List<Integer> notHosted = listed.stream().filter(p -> partitions.contains(p) && !hosted.contains(p)).toList();
        if (!unknown.isEmpty() || !notHosted.isEmpty()) {
            List<String> problems = new ArrayList<>();
            if (!unknown.isEmpty()) {
                problems.add(service + " has no partition " + unknown + " in the yellow page (it has " + partitions
                        + ")");
            }
            if (!notHosted.isEmpty()) {
                problems.add(node + " hosts no replica of " + service + " partition " + notHosted);
            }
            throw new NeptuneException("NEP-PLACE-005 " + String.join("; ", problems) + " (" + node + " hosts "
                    + hosted + "): nothing changed, on no partition; name only partitions it hosts, or all");
        }
        return listed;
    }

    /** picocli's converter of the PARTITION argument: a bad one is a usage error naming the problem. */
    public static final class Converter implements ITypeConverter<PartitionSelection> {
        @Override
        public PartitionSelection convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
