package io.neptune.server.internal.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code %mdcFields} of {@link NodeLogEncoder}'s text lines: the event's MDC as
 * {@code " [node=n1 service=kv partition=3 requestId=17]"}, the {@link RequestMdc} keys first in
 * their order and any others (an application's own) after them by name; nothing at all when the
 * MDC is empty, so lines logged outside a request look as they always did.
 *
 * <p>Thread-safety: stateless; Logback calls it from every logging thread.
 */
public final class MdcFieldsConverter extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
        Map<String, String> mdc = event.getMDCPropertyMap();
        if (mdc == null || mdc.isEmpty()) {
            return "";
        }
        StringBuilder line = new StringBuilder(" [");
        for (String key : RequestMdc.KEYS) {
            String value = mdc.get(key);
            if (value != null) {
                append(line, key, value);
            }
        }
        Map<String, String> others = new TreeMap<>(mdc);
        others.keySet().removeAll(RequestMdc.KEYS);
        others.forEach((key, value) -> append(line, key, value));
        return line.append(']').toString();
    }

    private static void append(StringBuilder line, String key, String value) {
        if (line.length() > 2) {
            line.append(' ');
        }
        line.append(key).append('=').append(value);
    }
}
