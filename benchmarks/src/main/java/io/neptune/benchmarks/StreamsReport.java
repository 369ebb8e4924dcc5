package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The figures of {@link StreamsExperiment}: each system's rounds in each case reduced to a mean and a
 * spread, the ratio to gRPC-java in the same case, and the report {@code docs/benchmarks/streams.*}.
 * Pure functions of the measurements, so they are unit-tested without streaming anything.
 */
final class StreamsReport {
    private StreamsReport() {}

    /**
     * The mean of some rounds' values and their sample standard deviation (0 for one round).
     *
     * @param mean the mean
     * @param sd the sample standard deviation
     */
    record Spread(double mean, double sd) {
        static Spread of(List<Double> values) {
            if (values.isEmpty()) {
                throw new IllegalArgumentException("values: [] (expected: at least one)");
            }
            double mean = values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
            if (values.size() == 1) {
                return new Spread(mean, 0);
            }
            double squares = values.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum();
            return new Spread(mean, Math.sqrt(squares / (values.size() - 1)));
        }

        Spread times(double factor) {
            return new Spread(mean * factor, sd * factor);
        }
    }

    /**
     * One round: its streams, opened at once.
     *
     * @param items messages received over all streams
     * @param seconds from opening the first stream to the end of the last
     * @param firstItemMillis mean over the streams of the time from opening one to its first message
     */
    record Round(long items, double seconds, double firstItemMillis) {
        /** The round of these streams' results. */
        static Round of(List<StreamTally.Result> streams) {
            long opened = streams.stream().mapToLong(StreamTally.Result::openedNanos).min().orElseThrow();
            long ended = streams.stream().mapToLong(StreamTally.Result::endedNanos).max().orElseThrow();
            long items = streams.stream().mapToLong(StreamTally.Result::items).sum();
            double firstItem = streams.stream().mapToDouble(StreamTally.Result::firstItemMillis).average()
                    .orElseThrow();
            return new Round(items, (ended - opened) / 1e9, firstItem);
        }

        double itemsPerSecond() {
            return items / seconds;
        }
    }

    /**
     * One system's measured rounds in one case.
     *
     * @param system the system's label
     * @param streamCase the case
     * @param rounds the measured rounds
     * @param load the one-minute load average when the case began
     */
    record Measurement(String system, StreamsExperiment.Case streamCase, List<Round> rounds, String load) {
        Measurement {
            requireNonNull(system, "system");
            requireNonNull(streamCase, "streamCase");
            rounds = List.copyOf(rounds);
            requireNonNull(load, "load");
        }

        Spread itemsPerSecond() {
            return Spread.of(rounds.stream().map(Round::itemsPerSecond).toList());
        }

        /** Payload megabytes (10^6 bytes) per second; the framing each system adds is not counted. */
        Spread megabytesPerSecond() {
            return itemsPerSecond().times(streamCase.itemBytes() / 1e6);
        }

        Spread firstItemMillis() {
            return Spread.of(rounds.stream().map(Round::firstItemMillis).toList());
        }
    }

    /** This measurement's mean messages/s over that of {@code baseline} in the same case, if it ran. */
    static Optional<Double> ratio(List<Measurement> measurements, Measurement m, String baseline) {
        return measurements.stream()
                .filter(b -> b.system().equals(baseline) && b.streamCase().equals(m.streamCase()))
                .findFirst()
                .map(b -> m.itemsPerSecond().mean() / b.itemsPerSecond().mean());
    }

    /** The Markdown table of Neptune's throughput over each gRPC variant's, case by case. */
    static String ratioTable(List<Measurement> measurements) {
        StringBuilder md = new StringBuilder("Neptune / gRPC (mean messages/s, same case, same run):\n\n"
                + "| payload (B) | streams | Neptune / gRPC-java | Neptune / gRPC-java direct executor |\n"
                + "| --- | --- | --- | --- |\n");
        for (Measurement m : measurements) {
            if (m.system().equals(StreamsExperiment.NEPTUNE)) {
                md.append(String.format(Locale.ROOT, "| %d | %d | %s | %s |%n", m.streamCase().itemBytes(),
                        m.streamCase().streams(), ratioCell(measurements, m, StreamsExperiment.GRPC),
                        ratioCell(measurements, m, StreamsExperiment.GRPC_DIRECT)));
            }
        }
        return md.toString().stripTrailing();
    }

    private static String ratioCell(List<Measurement> measurements, Measurement m, String baseline) {
        return ratio(measurements, m, baseline).map(r -> String.format(Locale.ROOT, "%.2f", r)).orElse("—");
    }

    static Report report(StreamsExperiment.Plan plan, List<Measurement> measurements, String context) {
        Report report = new Report("streams", "Stream throughput: server streams, Neptune and gRPC-java", "system",
                "payload (B)", "streams", "messages per stream", "rounds", "messages/s", "messages/s sd", "MB/s",
                "MB/s sd", "first message (ms)", "x gRPC-java", "load (1 min)");
        for (Measurement m : measurements) {
            StreamsExperiment.Case c = m.streamCase();
            Spread rate = m.itemsPerSecond();
            Spread mb = m.megabytesPerSecond();
            report.row(m.system(), c.itemBytes(), c.streams(), c.itemsPerStream(), m.rounds().size(), rate.mean(),
                    rate.sd(), mb.mean(), mb.sd(), m.firstItemMillis().mean(),
                    ratio(measurements, m, StreamsExperiment.GRPC).map(r -> (Object) r).orElse("—"), m.load());
            report.categoryPoint(m.system(), c.itemBytes() + " B x " + c.streams(), mb.mean());
        }
        report.axes("payload x streams open at once", "payload MB/s (mean of the rounds)", false).logarithmicY()
                .legendOutside();
        report.note(String.format(Locale.ROOT, "Each row: %d warm-up and %d measured rounds per system, the systems"
                + " taking turns round by round. A round opens the row's streams at once, %,d messages of the 100 B"
                + " payload or %,d of the 16 KB payload shared out among them, and lasts from opening the first to"
                + " the end of the last; sd is the sample standard deviation over the measured rounds. MB/s counts"
                + " payload bytes (10^6 bytes), not framing. \"first message\" is the mean time from opening a"
                + " stream to its first message. Servers and clients share one JVM on 127.0.0.1.",
                plan.warmUpRounds(), plan.rounds(), plan.smallItems(), plan.largeItems()));
        report.note("Neptune: a @Read method returning Flow.Publisher<byte[]> that emits on the thread asking for"
                + " items, streamed between two nodes with default settings (2 I/O threads, 2 connections per node,"
                + " the client's credit window of 256); Jackson writes each byte[] as a base64 JSON string, so a 100 B"
                + " message is 138 bytes of item and a 16 KB one 21,850. gRPC-java: a server-streaming method with a"
                + " byte[] marshaller (no protoc classes), sending while the call is ready, one channel;"
                + " \"gRPC-java\" keeps its default executors, \"direct executor\" runs handler and callbacks on its"
                + " event loops.");
        report.note(ratioTable(measurements));
        report.note(context);
        return report;
    }
}
