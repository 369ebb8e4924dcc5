package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.neptune.benchmarks.StreamsExperiment.Case;
import io.neptune.benchmarks.StreamsExperiment.Plan;
import io.neptune.benchmarks.StreamsReport.Measurement;
import io.neptune.benchmarks.StreamsReport.Round;
import io.neptune.benchmarks.StreamsReport.Spread;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The streams bench's arguments, its arithmetic over rounds and its ratio table; nothing is streamed. */
class StreamsReportTest {
    private static final Case SMALL_ONE = new Case(100, 1, 1_000);
    private static final Case SMALL_MANY = new Case(100, 16, 62);

    @Test
    void argumentsSelectThePlan() {
        assertThat(Plan.parse()).isEqualTo(Plan.FULL);
        assertThat(Plan.parse("--quick")).isEqualTo(Plan.QUICK);
        assertThatThrownBy(() -> Plan.parse("--fast")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("argument: '--fast' (expected: --quick or nothing)");
    }

    @Test
    void aCaseSharesThePlansMessagesOutAmongItsStreams() {
        Plan plan = new Plan(true, 1, 3, 1_000, 100);

        assertThat(plan.of(100, 16)).isEqualTo(SMALL_MANY);
        assertThat(plan.of(16_384, 1)).isEqualTo(new Case(16_384, 1, 100));
        assertThat(plan.of(16_384, 1_000)).isEqualTo(new Case(16_384, 1_000, 1));
    }

    @Test
    void spreadIsTheMeanAndTheSampleStandardDeviation() {
        Spread spread = Spread.of(List.of(2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0));

        assertThat(spread.mean()).isEqualTo(5.0);
        assertThat(spread.sd()).isCloseTo(Math.sqrt(32.0 / 7), within(1e-12));
        assertThat(Spread.of(List.of(3.0))).isEqualTo(new Spread(3.0, 0));
        assertThat(spread.times(2)).isEqualTo(new Spread(10.0, spread.sd() * 2));
    }

    @Test
    void aRoundLastsFromTheFirstOpenToTheLastEnd() {
        Round round = Round.of(List.of(
                new StreamTally.Result(500, 1_000_000, 3_000_000, 501_000_000),
                new StreamTally.Result(500, 2_000_000, 3_000_000, 1_001_000_000)));

        assertThat(round.items()).isEqualTo(1_000);
        assertThat(round.seconds()).isCloseTo(1.0, within(1e-12));
        assertThat(round.itemsPerSecond()).isCloseTo(1_000, within(1e-9));
        assertThat(round.firstItemMillis()).isCloseTo(1.5, within(1e-12));
    }

    @Test
    void megabytesPerSecondCountPayloadBytes() {
        Measurement m = new Measurement(StreamsExperiment.NEPTUNE, new Case(16_384, 1, 10),
                List.of(new Round(10_000, 1.0, 1), new Round(30_000, 1.0, 1)), "1.0");

        assertThat(m.itemsPerSecond().mean()).isEqualTo(20_000);
        assertThat(m.megabytesPerSecond().mean()).isCloseTo(327.68, within(1e-9));
    }

    @Test
    void theRatioTableComparesNeptuneWithEachGrpcVariantInTheSameCase() {
        List<Measurement> measurements = List.of(
                measurement(StreamsExperiment.NEPTUNE, SMALL_ONE, 300),
                measurement(StreamsExperiment.GRPC, SMALL_ONE, 200),
                measurement(StreamsExperiment.GRPC_DIRECT, SMALL_ONE, 400),
                measurement(StreamsExperiment.NEPTUNE, SMALL_MANY, 100),
                measurement(StreamsExperiment.GRPC, SMALL_MANY, 400));

        assertThat(StreamsReport.ratio(measurements, measurements.get(3), StreamsExperiment.GRPC)).hasValue(0.25);
        assertThat(StreamsReport.ratioTable(measurements)).endsWith("""
                | payload (B) | streams | Neptune / gRPC-java | Neptune / gRPC-java direct executor |
                | --- | --- | --- | --- |
                | 100 | 1 | 1.50 | 0.75 |
                | 100 | 16 | 0.25 | — |""");
    }

    private static Measurement measurement(String system, Case c, double itemsPerSecond) {
        return new Measurement(system, c, List.of(new Round((long) itemsPerSecond, 1.0, 1)), "1.0");
    }
}
