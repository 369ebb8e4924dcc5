package io.neptune.server.internal.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Logback's {@link JsonEncoder}, one JSON object per line, with the fields an operator filters on:
 * {@code timestamp} (epoch milliseconds), {@code level}, {@code threadName}, {@code loggerName},
 * {@code mdc} (the {@link RequestMdc} keys while a request is served), {@code formattedMessage},
 * {@code throwable} (null or the exception with its causes and stack) and, when the message carries
 * one, {@code code}: its {@code NEP-...} code (docs/OPERATIONS.md, Log codes), so an alert matches the
 * code and not the wording. Logback's sequence numbers, nanoseconds, logger context, raw message
 * template and argument array are left out.
 *
 * <p>Thread-safety: as {@link JsonEncoder}; its appender serializes the calls.
 */
public final class JsonLinesEncoder extends JsonEncoder {
    /** The field of a line's {@code NEP-...} code. */
    public static final String CODE_ATTR_NAME = "code";

    /** A log code: {@code NEP-}, an area ({@code REPL}, {@code SEC}, {@code L1}, ...), three digits. */
    private static final Pattern CODE = Pattern.compile("\\bNEP-[A-Z][A-Z0-9]*-[0-9]{3}\\b");

    /** Creates the encoder with the fields above. */
    public JsonLinesEncoder() {
        setWithSequenceNumber(false);
        setWithNanoseconds(false);
        setWithContext(false);
        setWithMessage(false);
        setWithArguments(false);
        setWithFormattedMessage(true);
    }

    @Override
    protected void appendCustomFields(StringBuilder json, ILoggingEvent event) {
        String message = event.getFormattedMessage();
        if (message == null) {
            return;
        }
        Matcher code = CODE.matcher(message);
        if (code.find()) {
            json.append(',');
            appenderMember(json, CODE_ATTR_NAME, code.group());
        }
    }
}
