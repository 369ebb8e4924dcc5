package io.neptune.server.internal.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.MDC;

/**
 * The Logback configs a node runs with, the distribution's {@code config/logback.xml} and the
 * tests' (whose node processes log the same way), parse without an error and write what the format
 * switch says: JSON lines for {@code json}, text for the default.
 */
class ShippedLogConfigsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"src/dist/config/logback.xml", "src/test/resources/logback-test.xml"})
    void jsonMakesEveryLineAJsonObject(String config) throws Exception {
        LoggerContext context = configured(config, "json");
        try {
            JsonNode line = JSON.readTree(encode(context, "n1: [NEP-SEC-020] refused"));
            assertThat(line.path("level").asText()).isEqualTo("INFO");
            assertThat(line.path("loggerName").asText()).isEqualTo("io.neptune.server.Node");
            assertThat(line.path("code").asText()).isEqualTo("NEP-SEC-020");
        } finally {
            context.stop();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"src/dist/config/logback.xml", "src/test/resources/logback-test.xml"})
    void textIsTheDefault(String config) throws Exception {
        assumeTrue(System.getenv("NEPTUNE_LOG_FORMAT") == null, "NEPTUNE_LOG_FORMAT is set in this environment");
        LoggerContext context = configured(config, null);
        try {
            assertThat(encode(context, "n1: started")).matches("^\\S+ \\[main\\] INFO Node - n1: started\n$");
            assertThat(context.getLogger("io.neptune").getEffectiveLevel()).isEqualTo(Level.INFO);
            assertThat(context.getLogger("org.jgroups").getEffectiveLevel()).isEqualTo(Level.WARN);
        } finally {
            context.stop();
        }
    }

    /** {@code config} read by Logback as a node would, with the format switch set to {@code format} if not null. */
    private static LoggerContext configured(String config, String format) throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(MDC.getMDCAdapter());
        if (format != null) {
            context.putProperty("neptune.log.format", format);
        }
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(Path.of(config).toFile());
        assertThat(context.getStatusManager().getCopyOfStatusList()).as("Logback's status of " + config)
                .noneMatch(s -> s.getLevel() >= Status.WARN);
        return context;
    }

    /** What the config's console appender writes for an INFO line of {@code message}. */
    private static String encode(LoggerContext context, String message) {
        ch.qos.logback.classic.Logger logger = context.getLogger("io.neptune.server.Node");
        OutputStreamAppender<ILoggingEvent> console = (OutputStreamAppender<ILoggingEvent>)
                context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("console");
        LoggingEvent event = new LoggingEvent(ch.qos.logback.classic.Logger.class.getName(), logger, Level.INFO,
                message, null, null);
        event.setThreadName("main");
        return new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
    }
}
