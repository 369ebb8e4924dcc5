package io.neptune.server.internal.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/**
 * Records the lines of one logger, each with the MDC of the thread that logged it, taken as it
 * logged (a Logback event reads the MDC lazily, so a plain list appender would see the test
 * thread's). {@link #close()} detaches it.
 *
 * <p>Thread-safety: thread-safe; any thread may log while the test reads {@link #lines()}.
 */
public final class RecordingLogAppender extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    /** One recorded line: its level, formatted message, thread and MDC. */
    public record Line(String level, String message, String thread, Map<String, String> mdc) {}

    private final Logger logger;
    private final Queue<Line> lines = new ConcurrentLinkedQueue<>();

    private RecordingLogAppender(Logger logger) {
        this.logger = logger;
    }

    /** Records the lines of the logger named {@code name} (and its children) until closed. */
    public static RecordingLogAppender attach(String name) {
        Logger logger = (Logger) LoggerFactory.getLogger(name);
        RecordingLogAppender appender = new RecordingLogAppender(logger);
        appender.setContext(logger.getLoggerContext());
        appender.setName("recording-" + name);
        appender.start();
        logger.addAppender(appender);
        return appender;
    }

    @Override
    protected void append(ILoggingEvent event) {
        Map<String, String> mdc = event.getMDCPropertyMap();
        lines.add(new Line(event.getLevel().toString(), event.getFormattedMessage(), event.getThreadName(),
                mdc == null ? Map.of() : Map.copyOf(mdc)));
    }

    /** The lines recorded so far, in the order they were logged. */
    public List<Line> lines() {
        return List.copyOf(lines);
    }

    /** The recorded lines whose message is {@code message}. */
    public List<Line> lines(String message) {
        return lines.stream().filter(line -> line.message().equals(message)).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(this);
        stop();
    }
}
