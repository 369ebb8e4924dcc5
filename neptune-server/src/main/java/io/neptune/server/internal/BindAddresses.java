package io.neptune.server.internal;

import io.neptune.core.ConfigException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads a {@code bind-address} of a node's config file: an IP address or a host name as written, or
 * the name of a network interface ({@code lo}, {@code eth0}), which stands for its first IPv4
 * address, else its first address. A pod's IP needs no interface name: {@code ${POD_IP}}.
 *
 * <p>Thread-safety: stateless.
 */
public final class BindAddresses {
    /** What cannot be an interface name: an IPv4 literal or anything with a colon (IPv6). */
    private static final Pattern LITERAL = Pattern.compile("[0-9.]+|.*:.*");

    private BindAddresses() {}

    /** The address {@code text}, the value of {@code key}, stands for. */
    public static String resolve(String key, String text) {
        String name = text.strip();
        if (name.isEmpty() || LITERAL.matcher(name).matches()) {
            return text;
        }
        NetworkInterface network;
        try {
            network = NetworkInterface.getByName(name);
        } catch (SocketException e) {
            throw new ConfigException(key, "'" + text + "': the network interfaces cannot be listed (" + e.getMessage()
                    + ")");
        }
        if (network == null) {
            return text; // a host name
        }
        List<InetAddress> addresses = Collections.list(network.getInetAddresses());
        if (addresses.isEmpty()) {
            throw new ConfigException(key, "'" + text + "' is a network interface without an address (expected: an"
                    + " IP address, a host name, or an interface that has an address)");
        }
        InetAddress chosen = addresses.stream().filter(Inet4Address.class::isInstance).findFirst()
                .orElse(addresses.get(0));
        return chosen.getHostAddress();
    }
}
