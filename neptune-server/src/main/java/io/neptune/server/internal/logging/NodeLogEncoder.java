package io.neptune.server.internal.logging;

import static java.util.Objects.requireNonNull;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The encoder of a node's log lines in the distribution ({@code config/logback.xml}) and the demo:
 * {@value #TEXT} lines by {@link #setPattern pattern}, whose {@code %mdcFields} shows the request a line
 * was logged for ({@link MdcFieldsConverter}), or {@value #JSON} lines ({@link JsonLinesEncoder}), as
 * the {@link #setFormat format} says. The shipped configs take the format from the system property
 * {@code neptune.log.format}, else the environment variable {@code NEPTUNE_LOG_FORMAT}, else text;
 * an unknown format is reported as a Logback error and text is written.
 *
 * <p>Thread-safety: configured and started by Logback on one thread; {@link #encode} is then called
 * under its appender's lock.
 */
public final class NodeLogEncoder extends EncoderBase<ILoggingEvent> {
    /** Human-readable lines. */
    public static final String TEXT = "text";
    /** One JSON object per line. */
    public static final String JSON = "json";
    /** The text pattern unless one is set: time, thread, level, logger, the request's MDC, message. */
    public static final String DEFAULT_PATTERN = "%d{HH:mm:ss.SSS} [%thread] %level %logger{0}%mdcFields - %msg%n";

    private String format = TEXT;
    private String pattern = DEFAULT_PATTERN;
    private @Nullable Encoder<ILoggingEvent> delegate;

    /** Sets the format: {@value #TEXT} (the default) or {@value #JSON}, in any case, blanks ignored. */
    public void setFormat(String format) {
        this.format = requireNonNull(format, "format");
    }

    /** Sets the pattern of text lines (Logback's pattern layout, plus {@code %mdcFields}). */
    public void setPattern(String pattern) {
        this.pattern = requireNonNull(pattern, "pattern");
    }

    @Override
    public void start() {
        String chosen = format.strip().toLowerCase(Locale.ROOT);
        if (!chosen.equals(TEXT) && !chosen.equals(JSON)) {
            addError("log format: '" + format + "' (expected: " + TEXT + " or " + JSON
                    + ", from -Dneptune.log.format or NEPTUNE_LOG_FORMAT); writing " + TEXT);
            chosen = TEXT;
        }
        Encoder<ILoggingEvent> encoder = chosen.equals(JSON) ? new JsonLinesEncoder() : text();
        encoder.setContext(getContext());
        encoder.start();
        delegate = encoder;
        super.start();
    }

    private Encoder<ILoggingEvent> text() {
        PatternLayout layout = new PatternLayout();
        layout.getInstanceConverterMap().put("mdcFields", MdcFieldsConverter::new);
        layout.setPattern(pattern);
        layout.setContext(getContext());
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setLayout(layout);
        encoder.setCharset(StandardCharsets.UTF_8);
        return encoder;
    }

    @Override
    public void stop() {
        if (delegate != null) {
            delegate.stop();
        }
        super.stop();
    }

    @Override
    public byte @Nullable [] headerBytes() {
        return started().headerBytes();
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        return started().encode(event);
    }

    @Override
    public byte @Nullable [] footerBytes() {
        return started().footerBytes();
    }

    private Encoder<ILoggingEvent> started() {
        return requireNonNull(delegate, "delegate: start() sets it");
    }
}
