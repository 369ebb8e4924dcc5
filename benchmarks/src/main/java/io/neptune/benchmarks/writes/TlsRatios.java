package io.neptune.benchmarks.writes;

import io.neptune.benchmarks.ClosedLoop;
import io.neptune.benchmarks.writes.WritesExperiment.Measurement;
import io.neptune.benchmarks.writes.WritesExperiment.WriteSystem;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The table of a {@code --tls} run: at every shape (partitions, payload, writers) Neptune with 3
 * replicas plaintext against the same with TLS required on OpenSSL and on the JDK's TLS, as
 * throughput ratios and p50 latencies.
 */
final class TlsRatios {
    private TlsRatios() {}

    /** One row per plaintext measurement; a provider not measured at that shape shows NaN. */
    static String table(List<Measurement> measurements) {
        StringBuilder md = new StringBuilder("TLS against plaintext, committed writes/s (every node and the sending"
                + " node with security.tls: required, a certificate of its own from a development CA, TLS 1.3;"
                + " connections are pooled, so a handshake is paid once per connection):\n\n");
        md.append("| partitions | payload | writers | plaintext | OpenSSL | OpenSSL ÷ plaintext | JDK | JDK ÷ plaintext"
                + " | p50 ms plaintext / OpenSSL / JDK |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Measurement plain : measurements) {
            if (plain.system() != WriteSystem.NEPTUNE) {
                continue;
            }
            int writers = plain.result().callers();
            Measurement openssl = like(measurements, WriteSystem.NEPTUNE_TLS_OPENSSL, plain);
            Measurement jdk = like(measurements, WriteSystem.NEPTUNE_TLS_JDK, plain);
            double mine = plain.result().throughput();
            md.append(String.format(Locale.ROOT, "| %d | %s | %d | %.0f | %.0f | %.2f | %.0f | %.2f | %s / %s / %s |%n",
                    plain.partitions(), WritesExperiment.payloadLabel(plain.payload()), writers, mine,
                    throughput(openssl), throughput(openssl) / mine, throughput(jdk), throughput(jdk) / mine,
                    p50(plain), p50(openssl), p50(jdk)));
        }
        return md.toString().stripTrailing();
    }

    private static @Nullable Measurement like(List<Measurement> measurements, WriteSystem system, Measurement plain) {
        return measurements.stream().filter(m -> m.system() == system && m.partitions() == plain.partitions()
                && m.payload() == plain.payload() && m.result().callers() == plain.result().callers())
                .findFirst().orElse(null);
    }

    private static double throughput(@Nullable Measurement m) {
        return m == null ? Double.NaN : m.result().throughput();
    }

    private static String p50(@Nullable Measurement m) {
        if (m == null) {
            return "–";
        }
        ClosedLoop.Result r = m.result();
        return String.format(Locale.ROOT, "%.2f", r.p50() / 1e3);
    }
}
