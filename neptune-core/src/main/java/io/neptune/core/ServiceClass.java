package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * A category of requests that get the same quality of service (dissertation section 4.2.2): gold,
 * silver and bronze customers, or order placement ahead of catalog browsing. A node's scheduler
 * keeps one queue per class, guarantees each class its {@code guaranteedShare} of the workers' time
 * when it has the demand, and gives the rest to the requests likely to yield the most.
 *
 * <p>A request names its class on the wire; one that names none belongs to {@value #DEFAULT_NAME}.
 *
 * @param name the class name callers use: letters, digits, '-', '_' and '.', at most 64 characters
 * @param yield what a request of this class is worth as a function of its response time; its
 *     deadline D bounds how long a request of the class waits
 * @param guaranteedShare g: the fraction of the workers' time the class gets when it asks for it,
 *     0 for none; the shares of a node sum to at most 1
 */
public record ServiceClass(String name, YieldFunction yield, double guaranteedShare) {
    /** The class of a request that names none. */
    public static final String DEFAULT_NAME = "default";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** Validates the fields; the message names the class and the value that is wrong. */
    public ServiceClass {
        checkName(name);
        YieldFunction.check("service class " + name + " yield", yield);
        if (!(guaranteedShare >= 0 && guaranteedShare <= 1)) {
            throw new IllegalArgumentException("service class " + name + " share: " + guaranteedShare
                    + " (expected: a fraction from 0 to 1)");
        }
    }

    /** Returns {@code name} if it is a valid class name; else throws an {@link IllegalArgumentException} saying why. */
    public static String checkName(String name) {
        requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("service class name '" + name
                    + "' (expected: 1 to 64 letters, digits, '-', '_' or '.')");
        }
        return name;
    }

    /** A class with no guaranteed share. */
    public static ServiceClass of(String name, YieldFunction yield) {
        return new ServiceClass(name, yield, 0);
    }

    /**
     * The class of requests that name none when the node declares no {@value #DEFAULT_NAME}: each
     * answer worth 1 within a deadline far beyond any call's own (the call's deadline still applies),
     * and no guaranteed share.
     */
    public static ServiceClass defaultClass() {
        return new ServiceClass(DEFAULT_NAME, YieldFunction.throughput(1, Duration.ofDays(365)), 0);
    }
}
