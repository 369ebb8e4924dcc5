package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's stop signals, SIGTERM and SIGINT (Ctrl-C), handed to the nodes that serve until
 * stopped ({@code NeptuneNode.runUntilStopped()}). By default a JVM answers the first such signal by
 * running its shutdown hooks and ignores every later one, so a hook could drain a node but a second
 * signal could not cut the drain short. While at least one listener is registered, these handlers
 * replace the JVM's; when the last one leaves, the JVM's own handlers are put back, so a process whose
 * nodes closed otherwise still stops on a signal as any Java process does.
 *
 * <p>The handlers are installed through {@code sun.misc.Signal} (module {@code jdk.unsupported},
 * present in every JDK 17+), reached reflectively: javac warns of any direct use of that API and
 * this build treats warnings as errors. Where it is absent, or refuses (a JVM started with
 * {@code -Xrs}), {@link #listen} returns empty and the caller keeps the JVM's behaviour.
 *
 * <p>Thread-safety: thread-safe. Listeners run on the JVM's signal dispatcher thread and must not
 * block.
 */
public final class StopSignals {
    private static final Logger logger = LoggerFactory.getLogger(StopSignals.class);
    private static final List<String> SIGNALS = List.of("TERM", "INT");

    private static final CopyOnWriteArrayList<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    /** The JVM's handlers that ours replaced, by signal name; empty while ours are not installed. Guarded by the class. */
    private static final Map<String, Object> replaced = new LinkedHashMap<>();

    private StopSignals() {}

    /** A listener's registration; closing it stops the calls. */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Calls {@code listener} with the signal's name ({@code "TERM"} or {@code "INT"}) on each stop
     * signal the process receives, until the registration is closed.
     *
     * @return the registration, or empty if this JVM does not let the process handle its stop signals
     */
    public static Optional<Registration> listen(Consumer<String> listener) {
        synchronized (StopSignals.class) {
            if (replaced.isEmpty() && !install()) {
                return Optional.empty();
            }
            listeners.add(listener);
        }
        return Optional.of(() -> {
            synchronized (StopSignals.class) {
                if (listeners.remove(listener) && listeners.isEmpty()) {
                    restore();
                }
            }
        });
    }

    /** Installs a handler for every stop signal, remembering the JVM's; false (and nothing installed) if refused. */
    private static boolean install() {
        try {
            for (String name : SIGNALS) {
                replaced.put(name, Handlers.handle(name, Handlers.proxy(StopSignals::deliver)));
            }
            return true;
        } catch (ReflectiveOperationException | IllegalArgumentException | UnsupportedOperationException e) {
            logger.debug("stop signals cannot be handled in this JVM; the JVM's shutdown hooks run on them", e);
            restore();
            return false;
        }
    }

    /** Puts the JVM's handlers back. */
    private static void restore() {
        for (Map.Entry<String, Object> entry : replaced.entrySet()) {
            try {
                Handlers.handle(entry.getKey(), entry.getValue());
            } catch (ReflectiveOperationException | IllegalArgumentException | UnsupportedOperationException e) {
                logger.warn("could not restore the JVM's handler of SIG{}: {}", entry.getKey(), e.toString());
            }
        }
        replaced.clear();
    }

    private static void deliver(String signal) {
        for (Consumer<String> listener : listeners) {
            try {
                listener.accept(signal);
            } catch (RuntimeException e) {
                logger.error("a listener of SIG{} failed", signal, e);
            }
        }
    }

    /** {@code sun.misc.Signal} and {@code sun.misc.SignalHandler}, reflectively. */
    private static final class Handlers {
        private Handlers() {}

        /** {@code Signal.handle(new Signal(name), handler)}: installs {@code handler}, returns the one it replaced. */
        static Object handle(String name, Object handler) throws ReflectiveOperationException {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object signal = signalClass.getConstructor(String.class).newInstance(name);
            try {
                return signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException cause) {
                    throw cause; // IllegalArgumentException: the JVM keeps this signal (-Xrs, or used by the VM)
                }
                throw e;
            }
        }

        /** A {@code SignalHandler} that calls {@code onSignal} with the signal's name. */
        static Object proxy(Consumer<String> onSignal) throws ClassNotFoundException {
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            return Proxy.newProxyInstance(StopSignals.class.getClassLoader(), new Class<?>[] {handlerClass},
                    (proxy, method, args) -> invoke(proxy, method, args, onSignal));
        }

        private static @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args,
                Consumer<String> onSignal) throws ReflectiveOperationException {
            switch (method.getName()) {
                case "handle" -> {
                    Object signal = requireNonNull(args)[0];
                    onSignal.accept((String) signal.getClass().getMethod("getName").invoke(signal));
                    return null;
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "toString" -> {
                    return "neptune stop signal handler";
                }
                default -> throw new UnsupportedOperationException(method.toString());
            }
        }
    }
}
