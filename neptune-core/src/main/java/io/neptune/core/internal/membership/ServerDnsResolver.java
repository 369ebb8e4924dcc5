package io.neptune.core.internal.membership;

import java.util.List;
import javax.naming.NamingException;
import org.jgroups.Address;
import org.jgroups.protocols.dns.AddressedDNSResolver;

/**
 * DNS_PING's resolver for a configured DNS server ({@code membership.dns-server}) that also asks
 * that server for the hosts SRV records name. JGroups 5.5's {@link AddressedDNSResolver} asks the
 * server for SRV records and for A records of the query, but resolves an SRV record's target through
 * the system's resolver, with the trailing dot of the DNS answer, so with a server of its own a node
 * found no member at all.
 */
final class ServerDnsResolver extends AddressedDNSResolver {
    private static final String JNDI_DNS = "com.sun.jndi.dns.DnsContextFactory";

    /** Asks {@code server}, {@code host:port}. */
    ServerDnsResolver(String server) throws NamingException {
        super(JNDI_DNS, server);
    }

    @Override
    protected List<Address> resolveIPEntries(String host, String port) {
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        return resolveAEntries(name, port);
    }
}
