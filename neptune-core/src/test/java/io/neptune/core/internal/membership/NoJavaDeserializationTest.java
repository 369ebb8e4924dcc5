package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.jgroups.Message.Flag.DONT_BUNDLE;

import io.neptune.core.MembershipConfig;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Event;
import org.jgroups.Header;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.MessageFactory;
import org.jgroups.ObjectMessage;
import org.jgroups.Receiver;
import org.jgroups.auth.AuthToken;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.AUTH;
import org.jgroups.protocols.AuthHeader;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.UnicastHeader3;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.NakAckHeader2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.ByteArrayDataOutputStream;
import org.jgroups.util.Digest;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.MutableDigest;
import org.jgroups.util.SeqnoList;
import org.jgroups.util.SizeStreamable;
import org.jgroups.util.Util;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member of the cluster, or anyone who reaches the JGroups port, must not make a node run Java
 * deserialization (or make an object of a class it names). JGroups does both on its own, before a
 * receiver sees a message: it reads an {@link ObjectMessage}'s payload while decoding it (a
 * Java-serialized object, or any class by name), and its retransmission and stability protocols
 * call {@code getObject()}, which deserializes a byte payload flagged as serialized. Here a hostile
 * peer sends each of them to a node's channel, built as nodes build theirs, over real loopback
 * sockets; nothing may be deserialized, and the channel must keep working, JGroups' own object
 * payloads included.
 */
class NoJavaDeserializationTest {
    private static final AtomicInteger DESERIALIZED = new AtomicInteger();
    private static final AtomicInteger NAMED_READ = new AtomicInteger();
    private static final AtomicInteger CONSTRUCTED = new AtomicInteger();

    /** A Java-serializable value that counts its deserializations. */
    public static final class Tripwire implements Serializable {
        private static final long serialVersionUID = 1L;

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            DESERIALIZED.incrementAndGet();
        }
    }

    /** A value JGroups knows only by its class name (it has no magic number); counts its reads. */
    public static final class Named implements SizeStreamable {
        @Override
        public int serializedSize() {
            return 0;
        }

        @Override
        public void writeTo(DataOutput out) {}

        @Override
        public void readFrom(DataInput in) {
            NAMED_READ.incrementAndGet();
        }
    }

    @TempDir
    Path dir;

    @Test
    void aHostilePeerCannotMakeANodeDeserializeAndTheChannelKeepsWorking() throws Exception {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster("no-java-deserialization").build();
        List<String> received = new CopyOnWriteArrayList<>();
        try (JChannel node = JGroupsStacks.create(config).name("node");
                JChannel peer = JGroupsStacks.create(config).name("peer")) {
            SerializedPayloadsHandled handled = new SerializedPayloadsHandled();
            node.getProtocolStack().insertProtocol(handled, ProtocolStack.Position.ABOVE, TP.class);
            node.setReceiver(new Receiver() {
                @Override
                public void receive(Message msg) {
                    Object value = msg instanceof BytesMessage ? new String(msg.getArray(), msg.getOffset(),
                            msg.getLength(), StandardCharsets.UTF_8) : msg.getObject();
                    received.add(String.valueOf(value));
                }
            });
            node.connect("no-java-deserialization");
            peer.connect("no-java-deserialization");
            await().atMost(Duration.ofSeconds(30)).until(() -> node.getView().size() == 2
                    && peer.getView().size() == 2);
            Address target = node.getAddress();
            TP wire = peer.getProtocolStack().getTransport();

            // JGroups reads an ObjectMessage's payload while decoding the frame, on the connection's thread
            receiveFrame(node, peer, new ObjectMessage(target, new Tripwire()));
            receiveFrame(node, peer, new ObjectMessage(target, new Named())); // a class JGroups makes by its name
            // NAKACK2, UNICAST3 and STABLE call getObject(); sent below the peer's own protocols, each in a frame of
            // its own (what a handler throws drops the rest of a batch)
            byte[] serialized = Util.objectToByteBuffer(new Tripwire());
            wire.down(serializedWith(target, serialized, NAKACK2.class, NakAckHeader2.createXmitRequestHeader(target)));
            wire.down(serializedWith(target, serialized, UNICAST3.class, UnicastHeader3.createXmitReqHeader()));
            wire.down(serializedWith(target, serialized, STABLE.class,
                    new STABLE.StableHeader(STABLE.StableHeader.STABLE_GOSSIP, node.getView().getViewId())));
            // JGroups' own object payloads (retransmission lists, digests) still pass
            SeqnoList missing = new SeqnoList(2).add(1);
            Digest digest = new Digest(target, 0, 0);
            Digest stable = new MutableDigest(new Address[] {target}).set(target, 3, 4); // what STABLE gossips
            peer.send(new ObjectMessage(target, missing));
            peer.send(new ObjectMessage(target, digest));
            peer.send(new ObjectMessage(target, stable));
            peer.send(new BytesMessage(target, "after".getBytes(StandardCharsets.UTF_8)));

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(received).contains("after");
                assertThat(handled.count()).as("serialized payloads handled").isEqualTo(3);
            });
            assertThat(DESERIALIZED).as("Java deserializations").hasValue(0);
            assertThat(NAMED_READ).as("objects made by class name").hasValue(0);
            assertThat(received).as("delivered").containsExactly(missing.toString(), digest.toString(),
                    stable.toString(), "after");
        }
    }

    /** Made by JGroups from its class name when an AUTH header is read; counts its constructions. */
    public static final class NamedToken extends AuthToken {
        public NamedToken() {
            CONSTRUCTED.incrementAndGet();
        }

        @Override
        public String getName() {
            return NamedToken.class.getName();
        }

        @Override
        public int size() {
            return 0;
        }

        @Override
        public boolean authenticate(AuthToken token, Message msg) {
            return false;
        }

        @Override
        public void writeTo(DataOutput out) {}

        @Override
        public void readFrom(DataInput in) {}
    }

    /**
     * JGroups reads every header of a frame whatever the stack, and its AUTH header makes an object
     * of any class the frame names (no-argument constructor, static initializer): with or without
     * AUTH in the stack, on every port a peer reaches in plaintext (FD_SOCK2's included).
     */
    @Test
    void aPeerCannotMakeANodeConstructAClassAnAuthHeaderNames() throws Exception {
        MembershipConfig config = MembershipConfig.builder().stack(MembershipConfig.Stack.LOOPBACK)
                .bindAddress("127.0.0.1").discoveryDirectory(dir).cluster("no-named-classes").build();
        List<String> received = new CopyOnWriteArrayList<>();
        try (JChannel node = JGroupsStacks.create(config).name("node");
                JChannel peer = JGroupsStacks.create(config).name("peer")) {
            node.setReceiver(new Receiver() {
                @Override
                public void receive(Message msg) {
                    received.add(new String(msg.getArray(), msg.getOffset(), msg.getLength(), StandardCharsets.UTF_8));
                }
            });
            node.connect("no-named-classes");
            peer.connect("no-named-classes");
            await().atMost(Duration.ofSeconds(30)).until(() -> node.getView().size() == 2 && peer.getView().size() == 2);
            Message named = new BytesMessage(node.getAddress(), "named".getBytes(StandardCharsets.UTF_8))
                    .putHeader(ClassConfigurator.getProtocolId(AUTH.class), new AuthHeader(new NamedToken()));
            int before = CONSTRUCTED.get();

            receiveFrame(node, peer, named);
            peer.send(new BytesMessage(node.getAddress(), "after".getBytes(StandardCharsets.UTF_8)));

            await().atMost(Duration.ofSeconds(30)).until(() -> received.contains("after"));
            assertThat(CONSTRUCTED.get() - before).as("objects made from a class an AUTH header named").isZero();
            assertThat(received).containsExactly("after");
        }
    }

    /**
     * Every message type JGroups reads a frame into (a frame's, a batch's, a composite's or a
     * reassembled fragment's) refuses to deserialize a byte payload flagged as serialized.
     */
    @Test
    void everyByteMessageTypeRefusesASerializedPayload() throws Exception {
        JGroupsStacks.create(MembershipConfig.builder().bindAddress("127.0.0.1").build()).close(); // installs them
        byte[] serialized = Util.objectToByteBuffer(new Tripwire());
        for (short type : new short[] {Message.BYTES_MSG, Message.NIO_MSG, Message.FRAG_MSG}) {
            Message message = MessageFactory.create(type);
            message.setArray(serialized, 0, serialized.length).setFlag(Message.Flag.SERIALIZED);
            assertThatThrownBy(message::getObject).as("type %s", type).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a Java-serialized payload (expected: raw bytes");
            assertThat(message.copy(true, true).getClass()).as("a copy of type %s", type)
                    .isSameAs(message.getClass());
        }
        assertThat(DESERIALIZED).as("Java deserializations").hasValue(0);
    }

    /**
     * Hands {@code node}'s transport one frame from {@code peer}, as its TCP connection does, and
     * returns once the frame is decoded: a refused frame leaves the connection's stream where the
     * refusal stopped reading, so frames sent after it over the socket would not be read as sent.
     */
    private static void receiveFrame(JChannel node, JChannel peer, Message message) throws IOException {
        message.setSrc(peer.getAddress());
        ByteArrayDataOutputStream frame = new ByteArrayDataOutputStream();
        Util.writeMessage(message, frame, false);
        Address from = (Address) peer.down(new Event(Event.GET_PHYSICAL_ADDRESS, peer.getAddress()));
        node.getProtocolStack().getTransport().receive(from, frame.buffer(), 0, frame.position());
    }

    /** A byte payload flagged as Java-serialized, under the header of {@code protocol}. */
    private static Message serializedWith(Address target, byte[] payload, Class<? extends Protocol> protocol,
            Header header) {
        return new BytesMessage(target, payload).setFlag(Message.Flag.SERIALIZED, DONT_BUNDLE)
                .putHeader(ClassConfigurator.getProtocolId(protocol), header);
    }

    /** Counts the messages flagged as serialized that the protocols above it have finished handling. */
    private static final class SerializedPayloadsHandled extends Protocol {
        private final AtomicInteger handled = new AtomicInteger();

        int count() {
            return handled.get();
        }

        @Override
        public Object up(Message msg) {
            boolean serialized = msg.isFlagSet(Message.Flag.SERIALIZED) && msg instanceof BytesMessage;
            try {
                return up_prot.up(msg);
            } finally {
                if (serialized) {
                    handled.incrementAndGet();
                }
            }
        }

        @Override
        public void up(MessageBatch batch) {
            int serialized = 0;
            for (Message msg : batch) {
                serialized += msg.isFlagSet(Message.Flag.SERIALIZED) && msg instanceof BytesMessage ? 1 : 0;
            }
            try {
                up_prot.up(batch);
            } finally {
                handled.addAndGet(serialized);
            }
        }
    }
}
