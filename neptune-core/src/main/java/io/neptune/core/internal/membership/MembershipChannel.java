package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.json.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries announcements over JGroups into a {@link YellowPage}, removes nodes the JGroups view
 * drops, and expires unheard entries.
 *
 * <p>Thread-safety: thread-safe. JGroups delivers messages and views on its own threads; expiry
 * runs on one scheduler thread owned by this channel.
 */
public final class MembershipChannel implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(MembershipChannel.class);

    private final NodeId self;
    private final MembershipConfig config;
    private final YellowPage yellowPage;
    private final Map<Address, NodeId> nodesByAddress = new ConcurrentHashMap<>();
    /** Orders announcements against views: a late message must not bring back a member a view dropped. */
    private final Object viewLock = new Object();
    /**
     * Members that left the view and have not come back in a later one (a merge after a split brings
     * them back). A killed node's address never comes back: a restarted node joins with a new one.
     */
    private final Set<Address> departed = Collections.newSetFromMap(new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Address, Boolean> eldest) {
            return size() > 10_000;
        }
    });
    private Set<Address> lastMembers = Set.of();
    private final ScheduledExecutorService expiry;
    /**
     * Present when {@code security.tls} is permissive or required: a TLS transport (taking plaintext
     * too when permissive), signed announcements.
     */
    private final @Nullable MembershipSecurity security;
    private final Role role;
    private volatile @Nullable JChannel channel;
    private volatile boolean closed;

    /** What a member is to the group: JGroups puts the servers ahead of the others ({@link ServersFirst}). */
    public enum Role {
        /** A node hosting services, which it announces: coordinates the group while it is a member. */
        SERVER,
        /**
         * A member hosting nothing (a client's yellow page, an admin tool, a node without services):
         * coordinates only a group without servers.
         */
        CLIENT
    }

    /**
     * Creates an unstarted {@link Role#CLIENT} channel feeding {@code yellowPage}, as {@link
     * #MembershipChannel(NodeId, MembershipConfig, SecurityConfig, YellowPage, Role)} does.
     *
     * @throws ConfigException if the security files do not load
     */
    public MembershipChannel(NodeId self, MembershipConfig config, SecurityConfig security, YellowPage yellowPage) {
        this(self, config, security, yellowPage, Role.CLIENT);
    }

    /**
     * Creates an unstarted channel of a member in {@code role} feeding {@code yellowPage}; with {@code security.tls: required}
     * the transport is TLS (on the udp stack: messages are encrypted with a group key) and announcements are signed and verified, with {@code permissive} the
     * transport takes TLS and plaintext and unsigned announcements are taken too
     * ({@link MembershipSecurity}).
     *
     * @throws ConfigException if the security files do not load
     */
    public MembershipChannel(NodeId self, MembershipConfig config, SecurityConfig security, YellowPage yellowPage,
            Role role) {
        this.self = requireNonNull(self, "self");
        this.role = requireNonNull(role, "role");
        this.config = requireNonNull(config, "config");
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
        this.security = MembershipSecurity.of(self, config, requireNonNull(security, "security")).orElse(null);
        this.expiry = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "neptune-" + self + "-yellow-page");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Joins the cluster; blocks until the first view is installed. */
    public void start() {
        try {
            MembershipSecurity secured = security;
            JChannel ch = secured == null ? JGroupsStacks.create(config) : JGroupsStacks.create(config, secured);
            ch.setName(self.value());
            if (role == Role.SERVER) {
                ch.addAddressGenerator(ServersFirst.serverAddresses());
            }
            ch.setDiscardOwnMessages(false);
            ch.setReceiver(new Receiver() {
                @Override
                public void receive(Message msg) {
                    onMessage(msg);
                }

                @Override
                public void viewAccepted(View view) {
                    onView(view);
                }
            });
            channel = ch;
            ch.connect(config.cluster());
        } catch (Exception e) {
            close();
            throw new NeptuneException(self + ": cannot join cluster '" + config.cluster() + "' with the "
                    + config.stack().name().toLowerCase(java.util.Locale.ROOT) + " stack: " + e.getMessage(), e);
        }
        long period = Math.max(50, config.expiry().toMillis() / 10);
        expiry.scheduleWithFixedDelay(() -> expire(Duration.ofMillis(period)), period, period, TimeUnit.MILLISECONDS);
        logger.info("{}: joined cluster '{}' ({} stack, {}, {})", self, config.cluster(), config.stack(),
                security == null ? "plaintext" : security.describe(), channel == null ? "?" : channel.getAddress());
    }

    /**
     * Sends {@code announcement} to every other member. It does not come back to this node: the caller
     * puts it in its own yellow page, and a looped-back copy would only be parsed and, with TLS, have its
     * signature checked again.
     */
    public void publish(Announcement announcement) {
        JChannel ch = channel;
        if (ch == null || closed) {
            return;
        }
        try {
            byte[] bytes = Json.mapper().writeValueAsBytes(announcement);
            MembershipSecurity secured = security;
            Message message = new BytesMessage(null, secured == null ? bytes : secured.sign(bytes));
            ch.send(message.setFlag(Message.TransientFlag.DONT_LOOPBACK));
        } catch (Exception e) {
            if (!closed) {
                logger.warn("{}: cannot publish announcement: {}", self, e.toString());
            }
        }
    }

    /** What membership security refused, when {@code security.tls} is permissive or required. */
    public Optional<MembershipSecurity> security() {
        return Optional.ofNullable(security);
    }

    /** The number of members in the current JGroups view. */
    public int viewSize() {
        JChannel ch = channel;
        View view = ch == null ? null : ch.getView();
        return view == null ? 0 : view.size();
    }

    /** This member's JGroups address; null before {@link #start()}. */
    @Nullable Address address() {
        JChannel ch = channel;
        return ch == null ? null : ch.getAddress();
    }

    /**
     * Takes an announcement into the yellow page, unless its sender already left the view: JGroups
     * may deliver a dead member's last message after the view that dropped it (its delivery threads
     * and view thread run concurrently), and taking it would keep the dead node listed until its
     * entry expired, seconds later. A signed announcement taken by {@link #open} must also name the
     * node its certificate names and be newer than the last one taken from that node; else it is
     * dropped and the refusal recorded.
     */
    void onMessage(Message msg) {
        Opened opened = open(msg);
        if (opened == null) {
            return;
        }
        Announcement announcement;
        NodeId node;
        try {
            announcement = Json.mapper().readValue(opened.bytes(), opened.offset(), opened.length(), Announcement.class);
            node = NodeId.of(announcement.node());
        } catch (IOException | RuntimeException e) {
            logger.warn("{}: dropped malformed announcement from {}: {}", self, msg.getSrc(), e.getMessage());
            return;
        }
        MembershipSecurity secured = security;
        Principal signer = opened.signer();
        if (secured != null && signer != null && !signer.isNode(node)) {
            secured.refusals().record(Refusal.OTHER_NODE, "member " + msg.getSrc() + " signed as " + signer
                    + " announced " + node);
            return;
        }
        Address source = msg.getSrc();
        synchronized (viewLock) {
            if (source != null && departed.contains(source)) {
                logger.debug("{}: dropped an announcement of {} delivered after it left the view", self, node);
                return;
            }
            if (secured != null && signer != null && !secured.advance(node, announcement)) {
                secured.refusals().record(Refusal.REPLAYED, "member " + source + " sent " + node + "'s incarnation "
                        + announcement.incarnation() + " sequence " + announcement.sequence()
                        + " (expected: above the last one taken)");
                return;
            }
            if (source != null) {
                nodesByAddress.put(source, node);
            }
            yellowPage.update(announcement);
        }
    }

    /**
     * The announcement JSON in a message, and who signed it; null if it is dropped (the refusal is
     * recorded). With TLS {@code required} the message must be signed, and its chain and signature
     * must verify. With {@code permissive} a signed message is checked the same way and an unsigned
     * one (plain JSON) is taken unchecked. With {@code disabled} every peer is trusted: a signed
     * message (from a node with TLS) is read without checking it.
     */
    private @Nullable Opened open(Message msg) {
        byte[] bytes = msg.getArray();
        int offset = msg.getOffset();
        int length = msg.getLength();
        MembershipSecurity secured = security;
        if (secured == null) {
            return SignedAnnouncementCodec.decode(bytes, offset, length)
                    .map(signed -> new Opened(signed.announcement(), 0, signed.announcement().length, null))
                    .orElseGet(() -> new Opened(bytes, offset, length, null));
        }
        if (secured.acceptsPlaintext() && SignedAnnouncementCodec.isPlain(bytes, offset, length)) {
            return new Opened(bytes, offset, length, null);
        }
        AnnouncementSignatures.Verdict verdict = secured.verify(bytes, offset, length);
        if (verdict instanceof AnnouncementSignatures.Refused refused) {
            secured.refusals().record(refused.refusal(), "from member " + msg.getSrc() + ": " + refused.detail());
            return null;
        }
        byte[] announcement = ((AnnouncementSignatures.Accepted) verdict).announcement();
        return new Opened(announcement, 0, announcement.length, ((AnnouncementSignatures.Accepted) verdict).signer());
    }

    /** An announcement's JSON in {@code bytes[offset, offset + length)}, and its signer if it was signed. */
    private record Opened(byte[] bytes, int offset, int length, @Nullable Principal signer) {}

    /** Removes the nodes whose members left {@code view}. */
    void onView(View view) {
        Set<Address> members = Set.copyOf(view.getMembers());
        synchronized (viewLock) {
            for (Address gone : lastMembers) {
                if (!members.contains(gone)) {
                    departed.add(gone);
                }
            }
            departed.removeAll(members); // back after a split healed
            lastMembers = members;
            nodesByAddress.entrySet().removeIf(e -> {
                if (members.contains(e.getKey())) {
                    return false;
                }
                departed.add(e.getKey());
                yellowPage.remove(e.getValue(), "left the JGroups view " + view.getViewId());
                return true;
            });
        }
        logger.info("{}: view {} with {} members", self, view.getViewId(), view.size());
    }

    private void expire(Duration period) {
        try {
            yellowPage.expire(period);
        } catch (RuntimeException e) {
            logger.error("{}: yellow page expiry failed", self, e);
        }
    }

    /** Leaves the cluster; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        expiry.shutdownNow();
        JChannel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }
}
