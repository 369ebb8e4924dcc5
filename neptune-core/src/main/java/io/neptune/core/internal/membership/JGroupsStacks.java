package io.neptune.core.internal.membership;

import io.neptune.core.MembershipConfig;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.MFC;
import org.jgroups.protocols.PING;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.UDP;
import org.jgroups.protocols.UFC;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.dns.DNS_PING;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;
import org.jgroups.util.SocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * Builds the four JGroups stacks in code, so no XML file or system property is involved.
 *
 * <p>Failure detection is tuned for a cluster of service nodes: FD_SOCK2 ({@link PatientFdSock}, which
 * waits a moment for a joiner's address rather than suspecting it) sees a killed process at
 * once (its socket closes), VERIFY_SUSPECT2 confirms within half a second, FD_ALL3 catches hung
 * nodes after 12 s (long enough that a busy machine does not evict a live node). Together they
 * remove a crashed node well inside the yellow page's 5 s expiry.
 *
 * <p>With {@code security.tls: required} the TCP transport of the loopback, tcp and dns stacks
 * runs TLS with client authentication ({@link MembershipSecurity}); discovery and merge messages
 * travel over it too. With {@code permissive} that transport takes TLS and plaintext on one port
 * and connects with TLS, or in plaintext to a peer without TLS ({@link PermissiveSocketFactory});
 * the udp stack stays plaintext. FD_SOCK2's liveness sockets stay plaintext: they carry no data,
 * only the fact that a peer's socket is open. With {@code required} the udp stack encrypts what
 * travels from NAKACK2 up (announcements, views, retransmissions) with a group key
 * ({@link GroupKeyExchange}); discovery, merge, heartbeat and suspicion messages below it stay
 * plaintext, as JGroups places ASYM_ENCRYPT.
 *
 * <p>GMS orders every view with the server nodes first ({@link ServersFirst}), so a client or an admin
 * tool never coordinates while a server is a member.
 */
public final class JGroupsStacks {
    private JGroupsStacks() {}

    /**
     * Creates an unconnected channel for {@code config}, in plaintext: for {@code security.tls:
     * disabled}. JGroups reads its messages with the {@link StrictMessageTypes}, so nothing a
     * sender puts in one is Java-deserialized.
     */
    public static JChannel create(MembershipConfig config) throws Exception {
        return create(config, (SocketFactory) null);
    }

    /**
     * Creates an unconnected channel for {@code config} whose TCP transport runs TLS with client
     * authentication, or with {@code permissive} takes TLS and plaintext, as {@code security} says.
     * The udp stack stays plaintext with {@code permissive}; with {@code required} it encrypts its
     * messages with a group key handed out over TLS ({@link GroupKeyExchange}).
     */
    public static JChannel create(MembershipConfig config, MembershipSecurity security) throws Exception {
        if (config.stack() == MembershipConfig.Stack.UDP) {
            if (security.acceptsPlaintext()) {
                return create(config, (SocketFactory) null);
            }
            InetAddress bind = InetAddress.getByName(config.bindAddress());
            return create(config, null, security.groupEncryption(bind, config.multicastPort()));
        }
        return create(config, security.socketFactory());
    }

    private static JChannel create(MembershipConfig config, @Nullable SocketFactory tls) throws Exception {
        return create(config, tls, List.of());
    }

    /** {@code encryption} goes right below NAKACK2, where JGroups' documentation places ASYM_ENCRYPT. */
    private static JChannel create(MembershipConfig config, @Nullable SocketFactory tls, List<Protocol> encryption)
            throws Exception {
        StrictMessageTypes.install();
        InetAddress bind = InetAddress.getByName(config.bindAddress());
        List<Protocol> stack = new ArrayList<>();
        switch (config.stack()) {
            case LOOPBACK -> {
                stack.add(tcp(bind, config.port(), tls));
                DiscoveryDirectory.prepare(config.discoveryDirectory(), config.cluster());
                // A coordinator that another one (split off, or formed while discovery saw nothing) deleted
                // writes its file again when its merge check finds it missing (write_data_on_find).
                stack.add(new AtomicFilePing().setLocation(config.discoveryDirectory().toString())
                        .removeAllDataOnViewChange(true).writeDataOnFind(true));
            }
            case TCP -> {
                stack.add(tcp(bind, config.port(), tls));
                stack.add(new TCPPING().setInitialHosts(config.initialHosts()).setPortRange(0));
            }
            case DNS -> {
                stack.add(tcp(bind, config.port(), tls));
                DNS_PING dns = new DNS_PING().dnsQuery(config.dnsQuery())
                        .dnsRecordType(config.dnsRecordType().name());
                if (!config.dnsServer().isEmpty()) {
                    dns.dnsAddress(config.dnsServer()).dnsResolver(new ServerDnsResolver(config.dnsServer()));
                }
                stack.add(dns);
            }
            case UDP -> {
                UDP udp = new UDP().setMulticastAddress(InetAddress.getByName(config.multicastAddress()))
                        .setMulticastPort(config.multicastPort());
                udp.setBindAddress(bind);
                udp.setBindPort(config.port());
                udp.setIpTTL(1);   // multicast stays on the local subnet; routers never forward it
                stack.add(udp);
                stack.add(new PING());
            }
        }
        stack.add(new MERGE3().setMinInterval(1_000).setMaxInterval(3_000).setCheckInterval(4_000));
        stack.add(new PatientFdSock().setBindAddress(bind).setOffset(100).setPortRange(50));
        stack.add(new FD_ALL3().setTimeout(12_000).setInterval(1_000));
        stack.add(new VERIFY_SUSPECT2().setTimeout(500));
        stack.addAll(encryption);
        stack.add(new NAKACK2());
        stack.add(new UNICAST3());
        stack.add(new STABLE());
        // on every member: whichever one coordinates computes the next view
        stack.add(new GMS().setJoinTimeout(1_000).setLeaveTimeout(500).printLocalAddress(false)
                .setMembershipChangePolicy(new ServersFirst()));
        stack.add(new UFC());
        stack.add(new MFC());
        stack.add(new FRAG4());
        return new JChannel(stack);
    }

    private static TP tcp(InetAddress bind, int port, @Nullable SocketFactory tls) {
        TCP tcp = new TCP();
        if (tls != null) {
            tcp.setSocketFactory(tls); // FD_SOCK2 takes NIO channels from it, which stay plaintext
            // A refused peer retries every second, and JGroups would log each refusal; the trust manager
            // counts and logs refused certificates once a minute instead (NEP-SEC-030).
            tcp.logAcceptError(false);
        }
        tcp.setBindAddress(bind);
        tcp.setBindPort(port);
        tcp.setPortRange(port == 0 ? 0 : 10);
        return tcp;
    }
}
