package io.neptune.server.cli;

import picocli.CommandLine.IVersionProvider;

/**
 * {@code neptune --version}: the version the build stamped into the server jar's manifest
 * ({@code Implementation-Version}), so no launcher or source file repeats it.
 */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"Neptune " + version(), "Java " + Runtime.version() + " (" + System.getProperty("java.vendor")
                + ")"};
    }

    /** The version of the running Neptune, or {@code "(development build)"} when run from classes, not a jar. */
    public static String version() {
        String version = NeptuneCli.class.getPackage().getImplementationVersion();
        return version == null ? "(development build)" : version;
    }
}
