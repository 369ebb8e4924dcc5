package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * A thin client's seed: {@code host:port} of a node's request port, where {@code host} is an
 * address ({@code [::1]} for IPv6) or a DNS name that may list several nodes.
 *
 * <p>Thread-safety: immutable.
 *
 * @param host the address or name
 * @param port the request port
 */
public record Seed(String host, int port) {
    /** Validates the fields. */
    public Seed {
        requireNonNull(host, "host");
        if (host.isBlank() || port < 1 || port > 65_535) {
            throw new IllegalArgumentException("seed '" + host + ":" + port + "' (expected: host:port, port 1-65535)");
        }
    }

    /**
     * Parses {@code host:port} or {@code [ipv6]:port}.
     *
     * @throws IllegalArgumentException naming {@code text} if it is neither
     */
    public static Seed parse(String text) {
        requireNonNull(text, "seed");
        String trimmed = text.strip();
        int colon = trimmed.lastIndexOf(':');
        String host = colon < 0 ? "" : trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            host = ""; // an IPv6 address without brackets: its last group would read as the port
        }
        int port;
        try {
            port = colon < 0 ? -1 : Integer.parseInt(trimmed.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isBlank() || port < 1 || port > 65_535) {
            throw new IllegalArgumentException("seed '" + text + "' (expected: host:port of a node's request port,"
                    + " e.g. neptune-headless.shop.svc.cluster.local:7000 or [::1]:7000)");
        }
        return new Seed(host, port);
    }

    /** Every address the host names now (none if it names none). */
    List<InetSocketAddress> resolve() {
        List<InetSocketAddress> addresses = new ArrayList<>();
        try {
            for (InetAddress address : InetAddress.getAllByName(host)) {
                addresses.add(new InetSocketAddress(address, port));
            }
        } catch (UnknownHostException e) {
            return List.of();
        }
        return addresses;
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
