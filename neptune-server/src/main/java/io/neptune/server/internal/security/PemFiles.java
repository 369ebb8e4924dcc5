package io.neptune.server.internal.security;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.util.io.pem.PemObject;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes the PEM files of certificates and keys: certificates as {@code CERTIFICATE}
 * blocks, keys as unencrypted PKCS#8 {@code PRIVATE KEY} blocks (the form Netty's
 * {@code SslContextBuilder} reads). Key files and the directories made for them are readable by
 * their owner only, where the file system has POSIX permissions.
 */
final class PemFiles {
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private PemFiles() {}

    /** Creates {@code directory} readable by its owner only, unless it exists. */
    static void createDirectory(Path directory) {
        if (Files.isDirectory(directory)) {
            return;
        }
        try {
            Files.createDirectories(directory, ownerOnly(directory, OWNER_DIRECTORY));
        } catch (IOException e) {
            throw new CertificateFileException(directory, "cannot create the directory (" + e + ")", e);
        }
    }

    /** The certificates in {@code file}, in order; at least one. */
    static List<X509Certificate> readCertificates(Path file) {
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser parser = new PEMParser(reader)) {
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                if (!(object instanceof X509CertificateHolder holder)) {
                    throw malformed(file, "a " + object.getClass().getSimpleName(), "CERTIFICATE blocks", null);
                }
                certificates.add(converter.getCertificate(holder));
            }
        } catch (IOException | CertificateException | IllegalArgumentException e) {
            throw unreadable(file, e, "PEM CERTIFICATE blocks");
        }
        if (certificates.isEmpty()) {
            throw malformed(file, "no certificate", "PEM CERTIFICATE blocks", null);
        }
        return List.copyOf(certificates);
    }

    /** The private key in {@code file}: PKCS#8 ({@code PRIVATE KEY}) or SEC 1 ({@code EC PRIVATE KEY}). */
    static PrivateKey readKey(Path file) {
        String expected = "one unencrypted PEM PRIVATE KEY (PKCS#8) block";
        Object object;
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser parser = new PEMParser(reader)) {
            object = parser.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (object instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            if (object instanceof PEMKeyPair pair) {
                return converter.getKeyPair(pair).getPrivate();
            }
        } catch (IOException | IllegalArgumentException e) {
            throw unreadable(file, e, expected);
        }
        throw malformed(file, object == null ? "no key" : "a " + object.getClass().getSimpleName(), expected, null);
    }

    /**
     * Writes {@code key} as PKCS#8 PEM, readable by its owner only; replaces an existing file only if
     * {@code replace}.
     */
    static void writeKey(Path file, PrivateKey key, boolean replace) {
        if (!"PKCS#8".equals(key.getFormat())) {
            throw new IllegalArgumentException("key: " + key.getFormat() + " (expected: PKCS#8 encoded)");
        }
        write(file, pem(new PemObject("PRIVATE KEY", key.getEncoded())), true, replace);
    }

    /** Writes {@code certificates} as PEM, in order; replaces an existing file only if {@code replace}. */
    static void writeCertificates(Path file, List<X509Certificate> certificates, boolean replace) {
        write(file, pem(certificates.toArray()), false, replace);
    }

    private static String pem(Object... objects) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            for (Object object : objects) {
                writer.writeObject(object);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("PEM encoding in memory", e);
        }
        return text.toString();
    }

    /**
     * Writes {@code text} to {@code file}: a new file directly (failing if one exists), a replaced one
     * through a temporary file moved over it, so a reader (a node reloading its TLS files) never sees
     * half a file.
     */
    private static void write(Path file, String text, boolean secret, boolean replace) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        FileAttribute<?>[] attributes = secret ? ownerOnly(file, OWNER_FILE) : new FileAttribute<?>[0];
        try {
            if (!replace) {
                Files.write(Files.createFile(file, attributes), bytes);
                return;
            }
            Path temporary = file.toAbsolutePath().resolveSibling("." + file.getFileName() + ".tmp");
            Files.deleteIfExists(temporary);
            Files.write(Files.createFile(temporary, attributes), bytes);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            throw new CertificateFileException(file, "exists (expected: no such file; it is not overwritten)", e);
        } catch (IOException e) {
            throw new CertificateFileException(file, "cannot be written (" + e + ")", e);
        }
    }

    private static FileAttribute<?>[] ownerOnly(Path path, Set<PosixFilePermission> permissions) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)}
                : new FileAttribute<?>[0];
    }

    private static CertificateFileException unreadable(Path file, Exception e, String expected) {
        if (e instanceof NoSuchFileException) {
            return new CertificateFileException(file, "missing (expected: " + expected + ")", e);
        }
        return malformed(file, "unreadable (" + e + ")", expected, e);
    }

    private static CertificateFileException malformed(Path file, String found, String expected,
            @Nullable Exception cause) {
        return new CertificateFileException(file, found + " (expected: " + expected + ")", cause);
    }
}
