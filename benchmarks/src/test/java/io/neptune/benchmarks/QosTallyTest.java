package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.neptune.client.BalancingPolicy;
import io.neptune.core.ClassStats;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.NodeId;
import io.neptune.core.RequestDroppedException;
import io.neptune.core.YieldFunction;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** LossPercent as the load generator computes it, and the aims computed from it. */
class QosTallyTest {
    private static final Duration D = Duration.ofMillis(200);
    /** Hybrid 4:1, D' = D/2, C' = C/2, like the experiment's. */
    private static final List<YieldFunction> YIELDS = List.of(
            YieldFunction.hybrid(4, D.dividedBy(2), 2, D), YieldFunction.hybrid(1, D.dividedBy(2), 0.5, D));

    @Test
    void lossPercentCountsTheYieldAtTheMeasuredResponseTimeAndZeroForDropsAndFailures() {
        QosTally tally = new QosTally(YIELDS, D.toNanos(), false);
        tally.record(0, ms(50), null); // full: 4
        tally.record(0, ms(150), null); // half-way from D' to D: 4 - 2 * 0.5 = 3
        tally.record(0, ms(250), null); // answered after D: 0
        tally.record(0, ms(10), new CompletionException(new RequestDroppedException("svc#0.m", "gold", NodeId.of("n"), "late")));
        tally.record(1, ms(100), null); // 1
        tally.record(1, ms(5), new DeadlineExceededException("svc#0.m", D, "expired"));

        QosTally.Figures gold = tally.of(0);
        assertThat(gold.arrivals()).isEqualTo(4);
        assertThat(gold.answered()).isEqualTo(3);
        assertThat(gold.onTime()).isEqualTo(2);
        assertThat(gold.dropped()).isEqualTo(1);
        assertThat(gold.offeredYield()).isEqualTo(16);
        assertThat(gold.realizedYield()).isCloseTo(7, within(1e-9));
        assertThat(gold.lossPercent()).isCloseTo(100 * 9 / 16.0, within(1e-9));
        assertThat(gold.meanResponseMillis()).isCloseTo(150, within(1e-9));
        QosTally.Figures bronze = tally.of(1);
        assertThat(bronze.failed()).isEqualTo(1);
        assertThat(bronze.lossPercent()).isCloseTo(50, within(1e-9));
        QosTally.Figures total = tally.total();
        assertThat(total.arrivals()).isEqualTo(6);
        assertThat(total.lossPercent()).isCloseTo(100 * (18 - 8) / 18.0, within(1e-9));
        assertThat(total.meanResponseMillis()).isCloseTo((50 + 150 + 250 + 100) / 4.0, within(1e-9));
    }

    @Test
    void onlyTheRecordedWindowCountsUnlessEveryCallIsAsked() {
        QosTally window = new QosTally(YIELDS, D.toNanos(), false);
        QosTally every = new QosTally(YIELDS, D.toNanos(), true);
        OpenLoopRun.Request request = new OpenLoopRun.Request(1, 1, QosWorkload.MICRO.options(0, BalancingPolicy.RANDOM), 0);
        for (QosTally t : List.of(window, every)) {
            t.ended(request, ms(10), null, false);
            t.ended(request, ms(10), null, true);
        }
        assertThat(window.total().arrivals()).isEqualTo(1);
        assertThat(every.total().arrivals()).isEqualTo(2);
        assertThat(new QosTally(YIELDS, D.toNanos(), false).total().lossPercent()).isZero();
    }

    @Test
    void nodeLossComesFromTheDifferenceOfTwoSnapshots() {
        List<ClassStats> before = List.of(stats("gold", 40, 40), stats("bronze", 10, 5));
        List<ClassStats> after = List.of(stats("gold", 80, 60), stats("bronze", 30, 15), stats("default", 0, 0));
        assertThat(QosExperiment.nodeLoss(before, after)).isCloseTo(100 * (60 - 30) / 60.0, within(1e-9));
    }

    @Test
    void adaptiveIsComparedWithTheBetterOfYidAndGreedy() {
        List<QosExperiment.Point> level = new ArrayList<>();
        level.add(point(SchedulingPolicy.FIFO, 100, 40));
        level.add(point(SchedulingPolicy.YID, 100, 70));
        level.add(point(SchedulingPolicy.GREEDY, 100, 80));
        level.add(point(SchedulingPolicy.ADAPTIVE, 100, 77));
        QosReports.Aim aim = QosReports.aim(level).orElseThrow();
        assertThat(aim.ratio()).isCloseTo(77 / 80.0, within(1e-9));
        assertThat(aim.lossPoints()).isCloseTo(3, within(1e-9));
        assertThat(aim.fifoPoints()).isCloseTo(60 - 20, within(1e-9));
        assertThat(aim.met()).isTrue();
        level.set(3, point(SchedulingPolicy.ADAPTIVE, 100, 75));
        assertThat(QosReports.aim(level).orElseThrow().met()).isFalse();
        assertThat(QosReports.aim(level.subList(0, 2))).isEmpty();
    }

    private static QosExperiment.Point point(SchedulingPolicy policy, double offered, double realized) {
        QosTally.Figures f = new QosTally.Figures(10, 10, 10, 0, 0, offered, realized, 1);
        QosTally.Figures none = new QosTally.Figures(0, 0, 0, 0, 0, 0, 0, Double.NaN);
        return new QosExperiment.Point(QosWorkload.MICRO, QosWorkload.Form.HYBRID, 100, 1, policy,
                List.of(f, none, none), f, 0, 1);
    }

    private static ClassStats stats(String name, double offered, double realized) {
        return new ClassStats(name, 0, 0, 0, 0, 0, 0, 0, 0, offered, realized, 0);
    }

    private static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }
}
