package io.neptune.server;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Set;
import java.util.TreeSet;

/**
 * The classes and members one compiled class refers to, read from its constant pool (JVMS §4.4):
 * every class it names and every field, method and interface method it uses, as
 * {@code owner.name(descriptor)} with dotted class names. What a class refers to is what it can
 * reach; a reference only in a signature or a string constant does not count.
 *
 * @param className the class's own name, dotted
 * @param classes the classes it names (array types as their element type)
 * @param members the fields and methods it uses
 */
record ClassReferences(String className, Set<String> classes, Set<String> members) {
    private static final int CLASS = 7;
    private static final int FIELD = 9;
    private static final int METHOD = 10;
    private static final int INTERFACE_METHOD = 11;

    ClassReferences {
        classes = Set.copyOf(classes);
        members = Set.copyOf(members);
    }

    /** Reads a class file; closes nothing. */
    static ClassReferences read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        if (data.readInt() != 0xCAFEBABE) {
            throw new IOException("magic (expected: 0xCAFEBABE)");
        }
        data.readUnsignedShort(); // minor version
        data.readUnsignedShort(); // major version
        int count = data.readUnsignedShort();
        int[] tags = new int[count];
        String[] texts = new String[count];
        int[] first = new int[count];
        int[] second = new int[count];
        for (int i = 1; i < count; i++) {
            tags[i] = data.readUnsignedByte();
            switch (tags[i]) {
                case 1 -> texts[i] = data.readUTF();
                case CLASS, 8, 16, 19, 20 -> first[i] = data.readUnsignedShort();
                case 3, 4 -> data.readInt();
                case 5, 6 -> {
                    data.readLong();
                    i++; // takes two entries
                }
                case FIELD, METHOD, INTERFACE_METHOD, 12, 17, 18 -> {
                    first[i] = data.readUnsignedShort();
                    second[i] = data.readUnsignedShort();
                }
                case 15 -> {
                    data.readUnsignedByte();
                    first[i] = data.readUnsignedShort();
                }
                default -> throw new IOException("constant pool tag: " + tags[i] + " at " + i
                        + " (expected: JVMS 4.4)");
            }
        }
        data.readUnsignedShort(); // access flags
        int self = data.readUnsignedShort();
        Set<String> classes = new TreeSet<>();
        Set<String> members = new TreeSet<>();
        for (int i = 1; i < count; i++) {
            if (tags[i] == CLASS) {
                classes.add(dotted(texts[first[i]]));
            } else if (tags[i] == FIELD || tags[i] == METHOD || tags[i] == INTERFACE_METHOD) {
                int nameAndType = second[i];
                members.add(dotted(texts[first[first[i]]]) + "." + texts[first[nameAndType]]
                        + texts[second[nameAndType]]);
            }
        }
        return new ClassReferences(dotted(texts[first[self]]), classes, members);
    }

    /** A class name as the constant pool spells it, dotted; an array type as its element type. */
    private static String dotted(String internal) {
        String name = internal.replaceFirst("^\\[+", "");
        if (name.length() != internal.length() && name.startsWith("L") && name.endsWith(";")) {
            name = name.substring(1, name.length() - 1);
        }
        return name.replace('/', '.');
    }
}
