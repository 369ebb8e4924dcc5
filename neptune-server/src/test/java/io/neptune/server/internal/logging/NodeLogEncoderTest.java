package io.neptune.server.internal.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The lines a node writes through {@link NodeLogEncoder}: JSON lines that a log pipeline parses one
 * by one, with the request's MDC and the {@code NEP-...} code as fields; text lines that show the same
 * keys; an unknown format reported, not silent. Real Logback, in a logger context of its own.
 */
class NodeLogEncoderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final RequestId WRITE = RequestId.random();

    private final LoggerContext context = new LoggerContext();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @AfterEach
    void stop() {
        context.stop();
        MDC.clear();
    }

    @Test
    void jsonWritesOneObjectPerLineWithMessageLevelLoggerCodeAndTheRequestsKeys() throws Exception {
        Logger logger = logger("json");
        logger.info("started"); // outside a request
        try (RequestMdc mdc = RequestMdc.serving(NodeId.of("n1"), write())) {
            logger.warn("{}: [NEP-REPL-004] stepping down as primary of epoch {}", "n1", 7);
            logger.error("{}: failed \"quoted\"\nsecond line", "n1", new IllegalStateException("boom"));
        }

        List<JsonNode> lines = jsonLines();
        assertThat(lines).hasSize(3);
        JsonNode outside = lines.get(0);
        assertThat(outside.path("formattedMessage").asText()).isEqualTo("started");
        assertThat(outside.has("code")).isFalse();
        assertThat(outside.path("mdc").isMissingNode() || outside.path("mdc").isEmpty()).isTrue();

        JsonNode coded = lines.get(1);
        assertThat(coded.path("level").asText()).isEqualTo("WARN");
        assertThat(coded.path("loggerName").asText()).isEqualTo("io.neptune.test");
        assertThat(coded.path("formattedMessage").asText())
                .isEqualTo("n1: [NEP-REPL-004] stepping down as primary of epoch 7");
        assertThat(coded.path("code").asText()).isEqualTo("NEP-REPL-004");
        assertThat(coded.path("timestamp").asLong()).isPositive();
        JsonNode mdc = coded.path("mdc");
        assertThat(mdc.path("node").asText()).isEqualTo("n1");
        assertThat(mdc.path("service").asText()).isEqualTo("kv");
        assertThat(mdc.path("partition").asText()).isEqualTo("3");
        assertThat(mdc.path("requestId").asText()).isEqualTo("17");
        assertThat(mdc.path("traceId").asText()).isEqualTo(WRITE.toString());

        JsonNode failed = lines.get(2);
        assertThat(failed.path("formattedMessage").asText()).isEqualTo("n1: failed \"quoted\"\nsecond line");
        assertThat(failed.path("throwable").path("message").asText()).isEqualTo("boom");
    }

    @Test
    void textShowsTheRequestsKeysInOrderAfterTheLoggerAndNothingOutsideARequest() {
        Logger logger = logger("text");
        logger.info("started");
        MDC.put("tenant", "acme"); // an application's own key comes after Neptune's
        try (RequestMdc mdc = RequestMdc.serving(NodeId.of("n1"), write())) {
            logger.info("added {}", "x");
        }

        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly(
                "INFO test - started",
                "INFO test [node=n1 service=kv partition=3 requestId=17 traceId=" + WRITE + " tenant=acme] - added x");
    }

    @Test
    void anUnknownFormatIsReportedAsAnErrorAndTextIsWritten() {
        Logger logger = logger("xml");
        logger.info("started");

        assertThat(context.getStatusManager().getCopyOfStatusList())
                .anyMatch(s -> s.getLevel() == Status.ERROR && s.getMessage().contains("log format: 'xml'"
                        + " (expected: text or json"));
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("INFO test - started\n");
    }

    private Logger logger(String format) {
        context.setMDCAdapter(MDC.getMDCAdapter());
        NodeLogEncoder encoder = new NodeLogEncoder();
        encoder.setContext(context);
        encoder.setFormat(format);
        encoder.setPattern("%level %logger{0}%mdcFields - %msg%n");
        encoder.start();
        OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.setOutputStream(out);
        appender.start();
        Logger logger = context.getLogger("io.neptune.test");
        logger.addAppender(appender);
        return logger;
    }

    private List<JsonNode> jsonLines() throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n", -1)) {
            if (!line.isEmpty()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    private static RequestMessage write() {
        return new RequestMessage(17, "kv", 3, "put", AccessMode.WRITE, 1_000, 0, WRITE, new byte[0]);
    }
}
