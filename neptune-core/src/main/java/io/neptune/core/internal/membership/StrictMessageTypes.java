package io.neptune.core.internal.membership;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.function.Supplier;
import org.jgroups.BytesMessage;
import org.jgroups.FragmentedMessage;
import org.jgroups.Header;
import org.jgroups.Message;
import org.jgroups.MessageFactory;
import org.jgroups.NioMessage;
import org.jgroups.ObjectMessage;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.AuthHeader;
import org.jgroups.util.Digest;
import org.jgroups.util.MutableDigest;
import org.jgroups.util.SeqnoList;
import org.jgroups.util.SizeStreamable;
import org.jspecify.annotations.Nullable;

/**
 * JGroups' message types as a node reads them: no Java deserialization, and no object of a class the
 * sender names. Neptune itself sends and reads raw bytes only ({@link MembershipChannel}), but
 * JGroups deserializes on its own, before any receiver runs, for whoever reaches its port:
 *
 * <ul>
 *   <li>it reads an {@link ObjectMessage}'s payload while decoding the frame: a Java-serialized
 *       object, or an object of any class named in the frame;
 *   <li>NAKACK2, UNICAST3 and STABLE call {@code getObject()} on whatever carries their header, and
 *       on a byte payload flagged {@code SERIALIZED} that runs {@code ObjectInputStream}.
 * </ul>
 *
 * <p>{@link #install()} replaces the types that do so, for reading: an {@code ObjectMessage} takes
 * only the protocol values the stacks of {@link JGroupsStacks} send in one (retransmission lists
 * from NAKACK2 and UNICAST3, digests from STABLE), named by their registered magic number; the byte
 * messages ({@code BytesMessage}, {@code NioMessage}, {@code FragmentedMessage}) refuse
 * {@code getObject()} on a payload flagged {@code SERIALIZED} and hand out raw bytes as before. A
 * refused message fails to decode or to be handled, and JGroups drops it; nothing is made.
 *
 * <p>JGroups decodes every frame, and every message inside a batch, a composite or a reassembled
 * fragment, through {@link MessageFactory}, which is process-wide (JGroups 5 has no factory per
 * channel), so this applies to every JGroups channel in the process: one that an application
 * embedding a node opens itself and uses for Java-serialized objects has them refused. Neptune takes
 * Java serialization from no wire. The system property {@code jgroups.deserialization.filter} would
 * cover the first case only, and a library sets no JVM-wide properties.
 *
 * <p>This class extends {@code MessageFactory} only to reach its table of types, which JGroups keeps
 * protected and lets {@link MessageFactory#register} add to but not replace.
 *
 * <p>Thread-safety: {@link #install()} is idempotent and may be called from any thread; channels
 * created after it returns on the same thread, and the threads they start, read the new types.
 */
final class StrictMessageTypes extends MessageFactory {
    /** The magic numbers of the values JGroups' own protocols send in an {@code ObjectMessage}. */
    private static final Set<Short> PROTOCOL_VALUES = Set.of(ClassConfigurator.getMagicNumber(SeqnoList.class),
            ClassConfigurator.getMagicNumber(Digest.class), ClassConfigurator.getMagicNumber(MutableDigest.class));
    /** The magic number {@code Util.writeSizeStreamable} writes for a class it sends by name. */
    private static final short BY_NAME = -1;

    private StrictMessageTypes() {}

    /** Makes JGroups read messages with the strict types; idempotent. */
    static void install() {
        creators[Message.BYTES_MSG] = StrictBytesMessage::new;
        creators[Message.NIO_MSG] = StrictNioMessage::new;
        creators[Message.OBJ_MSG] = StrictObjectMessage::new;
        creators[Message.FRAG_MSG] = StrictFragmentedMessage::new;
        RefusedAuthHeader.install();
    }

    /** Refuses what {@code getObject()} would read with {@code ObjectInputStream}. */
    private static void refuseSerialized(Message message) {
        if (message.isFlagSet(Message.Flag.SERIALIZED)) {
            throw new IllegalArgumentException("JGroups message from " + message.getSrc() + ": a Java-serialized"
                    + " payload (expected: raw bytes; a node reads no Java serialization)");
        }
    }

    /** A {@link BytesMessage} whose {@code getObject()} does not deserialize. */
    static final class StrictBytesMessage extends BytesMessage {
        @Override
        public Supplier<Message> create() {
            return StrictBytesMessage::new;
        }

        @Override
        public <T> T getObject(@Nullable ClassLoader loader) {
            refuseSerialized(this);
            return super.getObject(loader);
        }
    }

    /** A {@link NioMessage} whose {@code getObject()} does not deserialize. */
    static final class StrictNioMessage extends NioMessage {
        @Override
        public Supplier<Message> create() {
            return StrictNioMessage::new;
        }

        @Override
        public <T> T getObject(@Nullable ClassLoader loader) {
            refuseSerialized(this);
            return super.getObject(loader);
        }
    }

    /** A {@link FragmentedMessage} (a byte message) whose {@code getObject()} does not deserialize. */
    static final class StrictFragmentedMessage extends FragmentedMessage {
        @Override
        public Supplier<Message> create() {
            return StrictFragmentedMessage::new;
        }

        @Override
        public <T> T getObject(@Nullable ClassLoader loader) {
            refuseSerialized(this);
            return super.getObject(loader);
        }
    }

    /** An {@link ObjectMessage} that reads JGroups' own protocol values only. */
    static final class StrictObjectMessage extends ObjectMessage {
        @Override
        public Supplier<Message> create() {
            return StrictObjectMessage::new;
        }

        /**
         * Reads the payload as {@code Util.readSizeStreamable} does (a presence byte, the class's magic
         * number or {@value #BY_NAME} and its name, then the value), but makes the value only for the
         * magic number of a protocol value: nothing is looked up by name or deserialized.
         */
        @Override
        public void readPayload(DataInput in) throws IOException, ClassNotFoundException {
            if (in.readByte() == 0) {
                obj = null;
                return;
            }
            short magic = in.readShort();
            if (!PROTOCOL_VALUES.contains(magic)) {
                String type = magic == BY_NAME ? "class " + in.readUTF() : "magic number " + magic;
                throw new IOException("JGroups ObjectMessage from " + getSrc() + ": payload of " + type
                        + " (expected: a retransmission list or a digest; a node makes no object a sender names)");
            }
            SizeStreamable value = ClassConfigurator.create(magic);
            value.readFrom(in);
            obj = value;
        }
    }

    /**
     * What JGroups makes for an AUTH header it reads: a header that refuses to be read. JGroups reads
     * every header of a frame before any protocol sees it, whether or not the stack has AUTH, and
     * its {@code AuthHeader} makes an object of any class the frame names (a static initializer and
     * a no-argument constructor run before the cast fails). No Neptune stack uses AUTH, so a frame
     * with that header is dropped as it is decoded, on every port that reads JGroups frames (the
     * transport and FD_SOCK2 alike).
     *
     * <p>JGroups lets no one replace a built-in magic number ({@code ClassConfigurator.add} refuses
     * those below 1024), so {@link #install()} sets the table entry by reflection; a JGroups
     * release that moves the table fails it loudly rather than leave the door open.
     */
    static final class RefusedAuthHeader extends Header {
        private static final short MAGIC = ClassConfigurator.getMagicNumber(AuthHeader.class);

        static void install() {
            try {
                Field field = ClassConfigurator.class.getDeclaredField("magicMap");
                field.setAccessible(true);
                @SuppressWarnings("unchecked")
                Supplier<Object>[] suppliers = (Supplier<Object>[]) field.get(null);
                suppliers[MAGIC] = RefusedAuthHeader::new;
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("cannot refuse JGroups' AUTH header (magic number " + MAGIC
                        + "): ClassConfigurator.magicMap is not where JGroups 5.5 keeps it (" + e + ")", e);
            }
        }

        @Override
        public short getMagicId() {
            return MAGIC;
        }

        @Override
        public Supplier<? extends Header> create() {
            return RefusedAuthHeader::new;
        }

        @Override
        public int serializedSize() {
            return 0;
        }

        @Override
        public void writeTo(DataOutput out) {
            throw new UnsupportedOperationException("a node sends no AUTH header");
        }

        @Override
        public void readFrom(DataInput in) throws IOException {
            throw new IOException("JGroups frame with an AUTH header (expected: none; a node runs no AUTH and makes"
                    + " no object of a class a sender names)");
        }
    }
}
