package io.neptune.server.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import io.neptune.core.internal.json.Json;
import io.neptune.server.internal.log.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A node's placement ({@code docs/protocols/placement.md}): per service, the partitions it hosts
 * since an operator's first add-replica or remove-replica, in {@code <data-directory>/placement.json}.
 * Where it names a service it overrides the config's {@code partitions:}, which give the initial
 * placement only. Written to a forced temporary file, renamed, and the directory forced
 * ({@link AtomicFiles#write}), so a {@code kill -9} or a machine crash leaves the old or the new
 * placement, and the new one once {@link #put} returned.
 *
 * <p>Thread-safety: thread-safe (writers serialize on this object).
 */
public final class PlacementStore {
    /** The file name in the data directory. */
    public static final String FILE = "placement.json";

    private final Path file;
    private final TreeMap<String, SortedSet<Integer>> placement = new TreeMap<>();

    /** Loads the placement of the node whose data directory is {@code dataDirectory} (empty if none was written). */
    public PlacementStore(Path dataDirectory) {
        this.file = dataDirectory.resolve(FILE);
        if (Files.exists(file)) {
            try {
                Map<String, Set<Integer>> read = Json.mapper().readValue(file.toFile(),
                        new TypeReference<Map<String, Set<Integer>>>() { });
                read.forEach((service, partitions) -> placement.put(service, new TreeSet<>(partitions)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the placement file " + file, e);
            }
        }
    }

    /** The partitions of {@code service} this node hosts by an operator's change, or empty if the config decides. */
    public synchronized Optional<SortedSet<Integer>> partitions(String service) {
        SortedSet<Integer> partitions = placement.get(service);
        return partitions == null ? Optional.empty() : Optional.of(new TreeSet<>(partitions));
    }

    /** Records that this node hosts {@code partitions} of {@code service} from now on, durably. */
    public synchronized void put(String service, Set<Integer> partitions) {
        placement.put(service, new TreeSet<>(partitions));
        try {
            Files.createDirectories(file.getParent());
            AtomicFiles.write(file, Json.mapper().writeValueAsBytes(placement));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the placement file " + file, e);
        }
    }
}
