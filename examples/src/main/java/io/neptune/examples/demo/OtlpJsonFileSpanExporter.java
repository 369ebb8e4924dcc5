package io.neptune.examples.demo;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.exporter.internal.otlp.traces.TraceRequestMarshaler;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends each batch of spans to a file as one line of OTLP JSON: an {@code ExportTraceServiceRequest}
 * ({@code {"resourceSpans":[...]}}), the line format of OpenTelemetry's OTLP file exporter. The JSON is
 * written by the marshaler of OpenTelemetry's own OTLP exporters ({@link TraceRequestMarshaler} of
 * {@code opentelemetry-exporter-otlp-common}), not by this class: it only frames the lines. The official
 * {@code OtlpStdoutSpanExporter} ({@code opentelemetry-exporter-logging-otlp}) would do the same, but that
 * artifact is not served at the BOM's version, and its last served one (1.63.0) calls marshaler methods
 * the 1.68 line no longer has.
 *
 * <p>Every process of the demo appends to the same file: it is opened in append mode and each line
 * goes out in one write, so the lines of different processes do not interleave.
 *
 * <p>Thread-safety: thread-safe (the batch span processor calls it from its worker thread).
 */
final class OtlpJsonFileSpanExporter implements SpanExporter {
    /**
     * The file's bound: a batch that finds it this large is dropped (a demo left running keeps about 2 KB
     * a call, some 700 MB an hour at the demo's rate, and would fill the disk).
     */
    static final long MAX_FILE_BYTES = 256L * 1024 * 1024;

    private static final Logger logger = LoggerFactory.getLogger(OtlpJsonFileSpanExporter.class);

    private final Path file;
    private final OutputStream out;
    private final AtomicBoolean failureLogged = new AtomicBoolean();
    private final AtomicBoolean fullLogged = new AtomicBoolean();
    private boolean shutDown;

    /**
     * Opens {@code file} for appending, creating it if absent.
     *
     * @throws IOException if the file cannot be opened
     */
    OtlpJsonFileSpanExporter(Path file) throws IOException {
        this.file = requireNonNull(file, "file");
        this.out = new FileOutputStream(file.toFile(), true);
    }

    @Override
    public synchronized CompletableResultCode export(Collection<SpanData> spans) {
        if (shutDown) {
            return CompletableResultCode.ofFailure();
        }
        if (spans.isEmpty()) {
            return CompletableResultCode.ofSuccess();
        }
        try {
            if (Files.size(file) >= MAX_FILE_BYTES) { // every process appends: the file's size, not this one's share
                if (fullLogged.compareAndSet(false, true)) {
                    logger.warn("{} reached {} MB: this process drops its spans from now on", file,
                            MAX_FILE_BYTES >> 20);
                }
                return CompletableResultCode.ofSuccess();
            }
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            TraceRequestMarshaler.create(spans).writeJsonTo(line);
            line.write('\n');
            line.writeTo(out); // one write: a line of another process never lands inside this one
            return CompletableResultCode.ofSuccess();
        } catch (IOException | RuntimeException e) {
            if (failureLogged.compareAndSet(false, true)) {
                logger.warn("cannot write spans to {} (later failures are not logged): {}", file, e.toString());
            }
            return CompletableResultCode.ofFailure();
        }
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess(); // every export is written through
    }

    @Override
    public synchronized CompletableResultCode shutdown() {
        if (shutDown) {
            return CompletableResultCode.ofSuccess();
        }
        shutDown = true;
        try {
            out.close();
            return CompletableResultCode.ofSuccess();
        } catch (IOException e) {
            logger.warn("cannot close the traces file {}: {}", file, e.toString());
            return CompletableResultCode.ofFailure();
        }
    }

    @Override
    public String toString() {
        return "OtlpJsonFileSpanExporter{file=" + file + "}";
    }
}
