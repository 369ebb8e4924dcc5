package io.neptune.examples.outside;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.Partitions;
import io.neptune.core.SecurityConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An application outside the cluster calling every example service but BLAST (which needs NCBI's
 * {@code blastn}): echo, cache, auction, discussion and search, each a write and a read that must see
 * it. It runs on {@code neptune-client} alone, with no JGroups and no {@code neptune-server} on its
 * class path, and finds the nodes from seed addresses ({@link NeptuneClient#connect(ClientConfig)}).
 *
 * <pre>
 * java -cp neptune-client.jar:... io.neptune.examples.outside.OutsideCaller 10.0.0.1:7000,10.0.0.2:7000 0,1,2,3 \
 *     client-shop.pem client-shop-key.pem ca.pem
 * </pre>
 *
 * <p>The first argument is the seeds, the second the partitions to call (those the nodes host); with
 * three more, the client's certificate, its key and the trusted authority, it connects with TLS. It
 * calls until its standard input closes and prints one line a second: {@code CALLS ok=<n> failed=<n>
 * nodes=<nodes that answered> last-failure=<message>}; first {@code JGROUPS absent} (or
 * {@code present}), then {@code CONNECTED}.
 */
public final class OutsideCaller {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);
    private static final int SEARCH_PARTITIONS = 8;

    private final NeptuneClient client;
    private final List<Integer> partitions;
    /** One session for all calls: auction is level 3, so a read sees this client's own bid. */
    private final NeptuneHandle handle = NeptuneHandle.create();
    private long ok;
    private long failed;
    private String lastFailure = "";

    private OutsideCaller(NeptuneClient client, List<Integer> partitions) {
        this.client = client;
        this.partitions = partitions;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 5) {
            System.err.println("usage: OutsideCaller <host:port,...> <partition,...> [<certificate> <key> <trust>]");
            System.exit(2);
        }
        SecurityConfig security = args.length == 2 ? SecurityConfig.disabled() : SecurityConfig.builder()
                .tls(SecurityConfig.TlsMode.REQUIRED).identity(Path.of(args[2]), Path.of(args[3]))
                .trust(Path.of(args[4])).build();
        System.out.println("JGROUPS " + (onClassPath("org.jgroups.JChannel") ? "present" : "absent")
                + " SERVER " + (onClassPath("io.neptune.server.NeptuneNode") ? "present" : "absent"));
        ClientConfig config = ClientConfig.builder().seeds(Arrays.asList(args[0].split(","))).timeout(CALL_TIMEOUT)
                .retries(4).build();
        List<Integer> partitions = Arrays.stream(args[1].split(",")).map(Integer::valueOf).toList();
        AtomicBoolean stdinOpen = new AtomicBoolean(true);
        Thread watcher = new Thread(() -> drain(System.in, stdinOpen), "stdin");
        watcher.setDaemon(true);
        watcher.start();
        try (NeptuneClient client = NeptuneClient.connect(config, security)) {
            System.out.println("CONNECTED " + client.node());
            new OutsideCaller(client, partitions).run(stdinOpen);
        }
    }

    private static boolean onClassPath(String name) {
        try {
            Class.forName(name, false, OutsideCaller.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static void drain(InputStream in, AtomicBoolean open) {
        try {
            while (in.read() >= 0) {
                // commands are not read: only the end of the input matters
            }
        } catch (IOException e) {
            // closed
        }
        open.set(false);
    }

    private void run(AtomicBoolean running) {
        long nextReport = System.nanoTime();
        for (int round = 0; running.get(); round++) {
            for (int partition : partitions) {
                callEvery(round, partition);
            }
            if (System.nanoTime() - nextReport >= 0) {
                Map<NodeId, Long> answers = client.responsesByNode();
                TreeSet<String> nodes = new TreeSet<>();
                answers.forEach((node, count) -> nodes.add(node.value()));
                System.out.println("CALLS ok=" + ok + " failed=" + failed + " nodes=" + String.join(",", nodes)
                        + " last-failure=" + lastFailure);
                nextReport = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            }
        }
    }

    private void callEvery(int round, int partition) {
        String key = "r" + round + "-p" + partition;
        check("echo", () -> Objects.equals(read("echo", partition, "echo", Map.of("message", key)).get("message"), key));
        check("cache", () -> {
            String value = Base64.getEncoder().encodeToString(("value of " + key).getBytes(StandardCharsets.UTF_8));
            write("cache", partition, "CacheUpdate", Map.of("key", key, "value", value));
            return Objects.equals(read("cache", partition, "CacheLookup", Map.of("key", key)).get("value"), value);
        });
        check("auction", () -> {
            Object id = write("auction", partition, "AddItem", Map.of("category", "books", "title", "item " + key,
                    "seller", "outside", "startingPrice", 10, "createdAt", System.currentTimeMillis())).get("id");
            write("auction", partition, "BidItem", Map.of("itemId", String.valueOf(id), "bidder", "b", "amount", 20));
            Object highestBid = read("auction", partition, "ViewItem", Map.of("itemId", String.valueOf(id)))
                    .get("highestBid");
            return highestBid instanceof Number bid && bid.longValue() == 20;
        });
        check("discussion", () -> {
            Map<String, Object> message = new HashMap<>(Map.of("topic", "t-" + partition, "author", "outside",
                    "subject", key, "body", "hello", "postedAt", System.currentTimeMillis()));
            message.put("parentId", null);
            Object id = write("discussion", partition, "AddMsg", message).get("id");
            return Objects.equals(read("discussion", partition, "ViewMsg", Map.of("topic", "t-" + partition, "id", id))
                    .get("subject"), key);
        });
        check("search", () -> {
            String id = searchDocumentIn(partition, key);
            write("search", partition, "PutDocument", Map.of("id", id, "title", "neptune " + key, "body",
                    "partitioned replicated " + key));
            Object hits = read("search", partition, "Search", Map.of("query", "replicated", "k", 3)).get("hits");
            return hits instanceof List<?> list && !list.isEmpty();
        });
    }

    /** A document id of {@code key} that the search service keeps in {@code partition}. */
    private static String searchDocumentIn(int partition, String key) {
        for (int i = 0; ; i++) {
            String id = key + "-" + i;
            if (Partitions.of(id, SEARCH_PARTITIONS) == partition) {
                return id;
            }
        }
    }

    private interface Step {
        boolean run();
    }

    private void check(String service, Step step) {
        try {
            if (step.run()) {
                ok++;
            } else {
                failed++;
                lastFailure = service + ": the read did not see the write";
            }
        } catch (NeptuneException e) {
            failed++;
            lastFailure = service + ": " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> read(String service, int partition, String method, Map<String, ?> request) {
        return client.call(handle, service, partition, method, AccessMode.READ, request, Map.class);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> write(String service, int partition, String method, Map<String, ?> request) {
        return client.call(handle, service, partition, method, AccessMode.WRITE, request, Map.class);
    }
}
