package io.neptune.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The DNS of a Kubernetes headless Service with {@code publishNotReadyAddresses}, played by a real
 * {@code dnsmasq} inside a network namespace of the test's: {@code <service>.<namespace>.svc.cluster.local}
 * resolves to one A record per pod, and each pod's own name {@code <pod>.<service>.<namespace>.svc.cluster.local}
 * to its address, as CoreDNS answers for a StatefulSet. {@link #publish} rewrites the records (an
 * {@code --addn-hosts} file) and makes dnsmasq read them again (SIGHUP), as the endpoints change when
 * the StatefulSet scales. No TTL (dnsmasq's {@code local-ttl} is 0): every query sees the last records.
 *
 * <p>Thread-safety: not thread-safe; the test thread drives it. {@link #close} stops dnsmasq on every path.
 */
final class HeadlessServiceDns implements AutoCloseable {
    private static final Duration START = Duration.ofSeconds(30);

    private final String name;
    private final String serviceName;
    private final String namespace;
    private final Path hosts;
    private final NodeProcess dnsmasq;

    private HeadlessServiceDns(String serviceName, String namespace, Path hosts, NodeProcess dnsmasq) {
        this.name = serviceName + "." + namespace + ".svc.cluster.local";
        this.serviceName = serviceName;
        this.namespace = namespace;
        this.hosts = hosts;
        this.dnsmasq = dnsmasq;
    }

    /** Where dnsmasq is installed (Debian's {@code dnsmasq-base}), or empty. */
    static Optional<Path> program() {
        return List.of(Path.of("/usr/sbin/dnsmasq"), Path.of("/usr/bin/dnsmasq")).stream()
                .filter(Files::isExecutable).findFirst();
    }

    /**
     * Starts dnsmasq in network namespace {@code networkNamespace}, answering on {@code address} port 53
     * for the headless Service {@code serviceName} of Kubernetes namespace {@code namespace}, with no
     * records yet; its files and log go to {@code directory}.
     */
    static HeadlessServiceDns start(Path program, String networkNamespace, String address, String serviceName,
            String namespace, Path directory) throws IOException {
        Path hosts = Files.writeString(directory.resolve("headless-service.hosts"), "");
        NodeProcess dnsmasq = NodeProcess.start("dnsmasq", List.of("ip", "netns", "exec", networkNamespace,
                program.toString(), "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
                "--no-poll", "--bind-interfaces", "--listen-address=" + address, "--port=53", "--pid-file=",
                "--log-facility=-", "--log-queries", "--user=root", "--addn-hosts=" + hosts),
                directory.resolve("dnsmasq.log"));
        try {
            dnsmasq.awaitLine(l -> l.contains("read " + hosts), START, "dnsmasq reading " + hosts);
        } catch (AssertionError e) {
            dnsmasq.close();
            throw e;
        }
        return new HeadlessServiceDns(serviceName, namespace, hosts, dnsmasq);
    }

    /** The headless Service's name, e.g. {@code neptune-headless.shop.svc.cluster.local}. */
    String name() {
        return name;
    }

    /**
     * Publishes exactly {@code pods} (pod name to address) and waits until dnsmasq read them: the
     * Service's A records, one per pod, and each pod's own name.
     */
    void publish(Map<String, String> pods) {
        List<String> lines = new ArrayList<>();
        pods.forEach((pod, address) -> lines.add(address + " " + name + " " + pod + "." + serviceName + "." + namespace
                + ".svc.cluster.local"));
        try {
            Path next = Files.write(hosts.resolveSibling(hosts.getFileName() + ".next"), lines);
            Files.move(next, hosts, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + hosts, e);
        }
        List<String> command = List.of("kill", "-HUP", Long.toString(dnsmasq.handle().pid()));
        Commands.Result result = Commands.run(command);
        if (result.exit() != 0) {
            throw new IllegalStateException(result.describe(command));
        }
        // dnsmasq logs "read FILE - N names" (two names a pod) once it reloaded the file
        dnsmasq.awaitLine(l -> l.contains("read " + hosts + " - " + 2 * pods.size() + " "), START,
                "dnsmasq reading " + pods.size() + " pods from " + hosts);
    }

    /** The last lines dnsmasq wrote (its queries among them), for failure messages. */
    String details() {
        return dnsmasq.details();
    }

    /** Stops dnsmasq (SIGTERM, then SIGKILL); idempotent. */
    @Override
    public void close() {
        if (dnsmasq.handle().isAlive()) {
            dnsmasq.signalTerm();
        }
        dnsmasq.close();
    }
}
