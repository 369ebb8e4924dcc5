package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.neptune.client.NeptuneClient;
import io.neptune.core.ServiceDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.ObjectMessage;
import org.jgroups.util.Util;
import org.junit.jupiter.api.Test;

/**
 * No Java serialization on any wire, checked in the compiled main classes of neptune-core,
 * neptune-client and neptune-server as they are on this test's class path: none refers to Java's
 * object streams, to the JGroups calls that run them ({@code getObject()} and {@code setObject()} on
 * a message, {@code Util.objectFrom*}, an {@code ObjectMessage} of any object), to H2's object
 * (de)serialization, or turns on Jackson's default typing. What a class does not refer to it cannot
 * call. JGroups' own reading of messages is covered by {@code NoJavaDeserializationTest} in core.
 */
class JavaSerializationScanTest {
    /** Classes whose use is Java serialization, or lets a payload choose a class. */
    private static final Set<String> CLASSES = Set.of("java.io.ObjectInputStream", "java.io.ObjectOutputStream",
            "java.io.ObjectInput", "java.io.ObjectOutput", "java.beans.XMLDecoder", "java.beans.XMLEncoder",
            "java.rmi.MarshalledObject", "org.jgroups.util.ObjectWrapperSerializable",
            "org.jgroups.util.ObjectInputStreamWithClassloader", "org.apache.commons.lang3.SerializationUtils",
            "org.springframework.util.SerializationUtils",
            "com.fasterxml.jackson.databind.jsontype.impl.LaissezFaireSubTypeValidator");

    /** Members, as owner and the start of name plus descriptor, whose use is the same. */
    private static final List<Member> MEMBERS = List.of(
            new Member("org.jgroups.", "getObject("), // Java-deserializes a payload flagged SERIALIZED
            new Member("org.jgroups.", "setObject("), // Java-serializes what is not a JGroups Streamable
            new Member("org.jgroups.ObjectMessage", "<init>(Lorg/jgroups/Address;Ljava/lang/Object;)"),
            new Member("org.jgroups.JChannel", "send(Lorg/jgroups/Address;Ljava/lang/Object;)"),
            new Member("org.jgroups.util.Util", "objectFrom"),
            new Member("org.jgroups.util.Util", "objectTo"),
            new Member("org.h2.util.JdbcUtils", "deserialize"),
            new Member("org.h2.util.JdbcUtils", "serialize"),
            new Member("com.fasterxml.jackson.", "activateDefaultTyping"),
            new Member("com.fasterxml.jackson.", "enableDefaultTyping"),
            new Member("com.fasterxml.jackson.", "setDefaultTyping"));

    /**
     * The strict JGroups message types call the {@code getObject} they override, after refusing a
     * payload flagged SERIALIZED: that is the one use allowed.
     */
    private static final String STRICT_MESSAGE_TYPES = "io.neptune.core.internal.membership.StrictMessageTypes$";

    /** Owner prefix and name-with-descriptor prefix of a member reference. */
    private record Member(String owner, String nameAndDescriptor) {
        boolean matches(String reference) {
            int dot = reference.lastIndexOf('.'); // descriptors spell classes with '/'
            return reference.substring(0, dot).startsWith(owner)
                    && reference.substring(dot + 1).startsWith(nameAndDescriptor);
        }
    }

    @Test
    void noMainClassOfCoreClientOrServerRefersToJavaSerialization() throws Exception {
        List<String> found = new ArrayList<>();
        int scanned = 0;
        for (Class<?> anchor : List.of(ServiceDescriptor.class, NeptuneClient.class, NeptuneNode.class)) {
            Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            List<ClassReferences> classes = classesIn(location);
            assertThat(classes).as("classes in %s", location).isNotEmpty();
            scanned += classes.size();
            for (ClassReferences references : classes) {
                found.addAll(javaSerialization(references).stream().map(use -> location + ": " + use).toList());
            }
        }
        assertThat(found).as("Java serialization in %d main classes", scanned).isEmpty();
    }

    /** The scan finds what it looks for: here in a class of this test that uses each kind. */
    @Test
    void theScanFindsEachKindOfUse() throws Exception {
        ClassReferences references;
        try (InputStream in = Serializing.class.getResourceAsStream(
                Serializing.class.getName().substring(getClass().getPackageName().length() + 1) + ".class")) {
            assertThat(in).isNotNull();
            references = ClassReferences.read(in);
        }
        String self = Serializing.class.getName() + ": ";
        assertThat(javaSerialization(references)).contains(self + "java.io.ObjectInputStream",
                self + "org.jgroups.Message.getObject()Ljava/lang/Object;",
                self + "org.jgroups.util.Util.objectFromByteBuffer([B)Ljava/lang/Object;",
                self + "org.jgroups.ObjectMessage.<init>(Lorg/jgroups/Address;Ljava/lang/Object;)V",
                self + "org.jgroups.JChannel.send(Lorg/jgroups/Address;Ljava/lang/Object;)Lorg/jgroups/JChannel;")
                .anyMatch(use -> use.startsWith(self + "com.fasterxml.jackson.databind.ObjectMapper"
                        + ".activateDefaultTyping("))
                .anyMatch(use -> use.startsWith(self + "com.fasterxml.jackson.databind.json.JsonMapper$Builder"
                        + ".activateDefaultTyping("));
    }

    /** What {@code references} uses of Java serialization, as "class: reference". */
    private static List<String> javaSerialization(ClassReferences references) {
        String self = references.className();
        Stream<String> classes = references.classes().stream().filter(CLASSES::contains);
        Stream<String> members = references.members().stream()
                .filter(member -> MEMBERS.stream().anyMatch(m -> m.matches(member)))
                .filter(member -> !(self.startsWith(STRICT_MESSAGE_TYPES)
                        && member.endsWith(".getObject(Ljava/lang/ClassLoader;)Ljava/lang/Object;")));
        return Stream.concat(classes, members).map(use -> self + ": " + use).toList();
    }

    /** The classes in a directory of class files or a jar. */
    private static List<ClassReferences> classesIn(Path location) throws IOException {
        List<ClassReferences> classes = new ArrayList<>();
        if (Files.isDirectory(location)) {
            try (Stream<Path> files = Files.walk(location)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    try (InputStream in = Files.newInputStream(file)) {
                        classes.add(ClassReferences.read(in));
                    }
                }
            }
            return classes;
        }
        try (JarFile jar = new JarFile(location.toFile())) {
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                if (entry.getName().endsWith(".class") && !entry.getName().endsWith("module-info.class")) {
                    try (InputStream in = jar.getInputStream(entry)) {
                        classes.add(ClassReferences.read(in));
                    }
                }
            }
        }
        return classes;
    }

    /** Uses each kind of Java serialization the scan looks for; scanned, never run. */
    static final class Serializing {
        Object streams(byte[] bytes) throws IOException, ClassNotFoundException {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
                return in.readObject();
            }
        }

        Object jgroups(Message message, JChannel channel, byte[] bytes) throws Exception {
            channel.send(null, "hello");
            channel.send(new ObjectMessage(null, "hello"));
            return message.getObject() + "" + Util.objectFromByteBuffer(bytes);
        }

        ObjectMapper defaultTyping() {
            JsonMapper.builder().activateDefaultTyping(new ObjectMapper().getPolymorphicTypeValidator());
            return new ObjectMapper().activateDefaultTyping(new ObjectMapper().getPolymorphicTypeValidator());
        }
    }
}
