package io.neptune.server;

import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One node of {@link MulticastStackIT}, run as its own process inside a network namespace: a
 * {@link NeptuneNode} on the UDP multicast stack hosting some partitions of {@link EchoTestService}.
 *
 * <p>Arguments are {@code key=value}: {@code node}, {@code bind} (the namespace's address),
 * {@code multicast} ({@code group:port}), {@code cluster} and {@code partitions} (comma-separated),
 * and for {@code security.tls: required} (membership and request port) {@code certificate},
 * {@code key} and {@code trust} (PEM files); without them the node runs in plaintext.
 *
 * <p>Line protocol on stdout (log lines go to stderr):
 * <ul>
 *   <li>{@code STARTED <node>} once the node runs;
 *   <li>{@code NODES <n0,n1,...>} whenever the yellow page's node set changes (polled every 100 ms);
 *   <li>{@code CALL <p> OK <servedBy> <partition>} or {@code CALL <p> FAILED <error>}, answering a
 *       {@code CALL <p>} line read from stdin;
 *   <li>{@code FAILED <error>} if the node cannot start (exit code 2).
 * </ul>
 * The process stops when stdin closes or when its parent process exits.
 */
final class MulticastNodeMain {
    private MulticastNodeMain() {}

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> options = parse(args);
        NeptuneNode node;
        try {
            node = start(options);
        } catch (RuntimeException e) {
            emit("FAILED " + e);
            e.printStackTrace();
            System.exit(2);
            return;
        }
        CountDownLatch stop = new CountDownLatch(1);
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(stop::countDown));
        ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "yellow-page-poller");
            thread.setDaemon(true);
            return thread;
        });
        String[] last = {""};
        poller.scheduleWithFixedDelay(() -> {
            String nodes = node.knownNodes().stream().map(NodeId::value).collect(Collectors.joining(","));
            if (!nodes.equals(last[0])) {
                last[0] = nodes;
                emit("NODES " + nodes);
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
        Thread commands = new Thread(() -> readCommands(node, stop), "stdin-commands");
        commands.setDaemon(true);
        commands.start();
        emit("STARTED " + node.node());

        stop.await();
        poller.shutdownNow();
        node.close();
        System.exit(0);
    }

    private static NeptuneNode start(Map<String, String> options) {
        String bind = option(options, "bind");
        String[] multicast = option(options, "multicast").split(":", 2);
        MembershipConfig membership = MembershipConfig.builder()
                .stack(MembershipConfig.Stack.UDP)
                .cluster(option(options, "cluster"))
                .bindAddress(bind)
                .multicastAddress(multicast[0])
                .multicastPort(Integer.parseInt(multicast[1]))
                .announceInterval(Duration.ofMillis(200))
                .expiry(Duration.ofSeconds(2))
                .build();
        NodeConfig config = NodeConfig.builder()
                .node(option(options, "node"))
                .bindAddress(bind)
                .security(security(options))
                .ioThreads(2)
                .membership(membership)
                .build();
        List<Integer> partitions = new ArrayList<>();
        for (String p : option(options, "partitions").split(",")) {
            partitions.add(Integer.parseInt(p.trim()));
        }
        return NeptuneNode.builder(config)
                .host(new EchoTestService(), HostingConfig.builder().partitions(partitions).workers(2).build())
                .start();
    }

    /**
     * TLS required with the {@code certificate}, {@code key} and {@code trust} files if given;
     * otherwise plaintext, inside the test's own network namespaces, which nobody else reaches.
     */
    private static SecurityConfig security(Map<String, String> options) {
        if (!options.containsKey("certificate")) {
            return SecurityConfig.builder().insecure(true).build();
        }
        return SecurityConfig.builder().tls(SecurityConfig.TlsMode.REQUIRED)
                .identity(Path.of(option(options, "certificate")), Path.of(option(options, "key")))
                .trust(Path.of(option(options, "trust"))).build();
    }

    private static void readCommands(NeptuneNode node, CountDownLatch stop) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] words = line.trim().split("\\s+");
                if (words.length == 2 && words[0].equals("CALL")) {
                    emit(call(node, Integer.parseInt(words[1])));
                } else if (!line.isBlank()) {
                    emit("UNKNOWN " + line);
                }
            }
        } catch (IOException | RuntimeException e) {
            emit("STDIN " + e);
        } finally {
            stop.countDown();
        }
    }

    private static String call(NeptuneNode node, int partition) {
        try {
            Reply reply = node.client().call(NeptuneHandle.create(), "echo", partition, "echo", AccessMode.READ,
                    new Echo("from " + node.node()), Reply.class);
            return "CALL " + partition + " OK " + reply.node() + " " + reply.partition();
        } catch (RuntimeException e) {
            return "CALL " + partition + " FAILED " + e;
        }
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("argument: '" + arg + "' (expected: key=value)");
            }
            options.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return options;
    }

    private static String option(Map<String, String> options, String key) {
        String value = options.get(key);
        if (value == null) {
            throw new IllegalArgumentException(key + ": missing (expected: " + key + "=...)");
        }
        return value;
    }

    private static void emit(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
