package io.neptune.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Extractors on small reports with known numbers, written as the benches write them. */
class RowsTest {
    @TempDir
    Path directory;

    @Test
    void pollThreeReadsItsVsIdealAtNinetyPercentAndHoldsItAgainstTheBound() throws Exception {
        report("load-balancing", "./neptune bench lb --quick",
                "workload,load_pct,policy,requests,failures,mean_ms,vs_ideal,model_window,model_steady",
                "Fine-Grain,50,poll-3,100,0,25.0,1.50,1.07,1.07",
                "Fine-Grain,90,poll-3,100,0,36.0,1.20,1.33,1.33",
                "Fine-Grain,90,ideal,100,0,30.0,1.00,1.00,1.00",
                "Medium-Grain,90,poll-3,100,0,363,1.21,1.28,1.27");
        BenchData data = BenchData.in(directory);

        Outcome fine = row(ChapterThreeRows.rows(), "Fig. 3.3/3.5", "90% load; Fine-Grain").evaluate(data);
        Outcome medium = row(ChapterThreeRows.rows(), "Fig. 3.3/3.5", "90% load; Medium-Grain").evaluate(data);
        Outcome poisson = row(ChapterThreeRows.rows(), "Fig. 3.3/3.5", "90% load; Poisson/Exp").evaluate(data);

        assertThat(fine.measured()).isNotNull();
        assertThat(fine.measured().value()).isEqualTo(1.20);
        assertThat(fine.measured().text())
                .isEqualTo("1.2× (zero-overhead model: 1.33× in the same window, 1.33× steady)");
        assertThat(fine.measured().sources()).singleElement().satisfies(table -> {
            assertThat(table.run().day()).isEqualTo("2026-11-22");
            assertThat(table.run().mode()).isEqualTo("quick");
        });
        assertThat(fine.verdict()).as("1.20 is the bound itself").isEqualTo(Verdict.AGREES);
        assertThat(medium.verdict()).as("1.21 is past a bound with no tolerance").isEqualTo(Verdict.DISAGREES);
        assertThat(poisson.verdict()).as("no Poisson/Exp rows in the report").isEqualTo(Verdict.NOT_RUN);
    }

    @Test
    void figureThreeOneReadsTheNodesInaccuracyAtTheLargestDelayAndAtTenServiceTimes() throws Exception {
        report("load-index-inaccuracy", "./neptune bench inaccuracy --quick",
                "workload,load_pct,delay_x_service,delay_ms,node,model_window,model_steady,limit_model,bound_2rho",
                "Poisson/Exp,50,10,500,1.20,1.21,1.22,1.33,1.33",
                "Poisson/Exp,50,100,5000,1.05,1.30,1.33,1.33,1.33",
                "Fine-Grain,50,100,2220,0.80,0.81,0.81,0.81,-",
                "Poisson/Exp,90,10,500,2.70,2.80,2.99,10.0,9.47",
                "Fine-Grain,90,10,222,3.50,1.90,1.89,4.01,-",
                "Medium-Grain,90,10,2089,2.00,2.10,2.07,4.65,-");
        BenchData data = BenchData.in(directory);

        Outcome moderate = row(ChapterThreeRows.rows(), "Fig. 3.1", "at 50% load").evaluate(data);
        Outcome high = row(ChapterThreeRows.rows(), "Fig. 3.1", "around 3").evaluate(data);
        Outcome ratio = row(ChapterThreeRows.rows(), "Fig. 3.1", "much more significant").evaluate(data);

        assertThat(moderate.measured()).isNotNull();
        assertThat(moderate.measured().value()).as("Poisson/Exp at 50%, the largest delay").isEqualTo(1.05);
        assertThat(moderate.measured().text()).isEqualTo("1.05 at 100× the mean service time (exact queue: 1.3 on the"
                + " same requests, 1.33 steady; 2ρ/(1 − ρ²) = 1.33)");
        assertThat(moderate.verdict()).as("1.05 is more than 20% below 1.33").isEqualTo(Verdict.DISAGREES);
        assertThat(high.measured()).isNotNull();
        assertThat(high.measured().value()).as("the largest of the three at 90%, 10×").isEqualTo(3.5);
        assertThat(high.measured().text()).isEqualTo("3.5 on Fine-Grain (exact queue: 1.9 on the same requests, 1.89"
                + " steady; Poisson/Exp 2.7, Medium-Grain 2)");
        assertThat(high.verdict()).isEqualTo(Verdict.AGREES);
        assertThat(ratio.measured()).isNotNull();
        assertThat(ratio.measured().value()).isCloseTo(2.25, offset(1e-9));
        assertThat(ratio.verdict()).isEqualTo(Verdict.AGREES);
    }

    @Test
    void figureThreeOneIsNotRunWithoutItsReport() {
        Outcome moderate = row(ChapterThreeRows.rows(), "Fig. 3.1", "at 50% load").evaluate(BenchData.in(directory));

        assertThat(moderate.verdict()).isEqualTo(Verdict.NOT_RUN);
        assertThat(moderate.row().notRun()).contains("./neptune bench inaccuracy");
    }

    @Test
    void levelOneOverLevelTwoIsTheirSaturationRatioAtImbalanceOne() throws Exception {
        report("consistency-levels", "./neptune bench replication",
                "nodes,replicas,writes %,imbalance,level,saturation req/s,vs L2",
                "8,4,10,1/64,L1,700,1.00",
                "8,4,10,1/64,L2,700,1.00",
                "8,4,10,1,L1,560,1.12",
                "8,4,10,1,L2,500,1.00",
                "8,4,10,1,L3,480,0.96");
        BenchData data = BenchData.in(directory);

        Outcome levelOne = row(ChapterFiveRows.rows(), "Fig. 5.3", "level 1 is 12%").evaluate(data);
        Outcome levelTwo = row(ChapterFiveRows.rows(), "Fig. 5.3", "level 2 is 9%").evaluate(data);

        assertThat(levelOne.measured()).isNotNull();
        assertThat(levelOne.measured().value()).isCloseTo(12.0, offset(1e-9));
        assertThat(levelOne.measured().text()).isEqualTo("+12% (560 against 500 req/s; degree 4 on 8 nodes)");
        assertThat(levelOne.verdict()).isEqualTo(Verdict.AGREES);
        assertThat(levelTwo.measured()).isNotNull();
        assertThat(levelTwo.measured().value()).as("500 / 480").isCloseTo(4.1667, offset(
                1e-3));
        assertThat(levelTwo.verdict()).as("4.2% is more than 20% below 9%").isEqualTo(Verdict.DISAGREES);
        assertThat(levelTwo.measured().sources().get(0).run().mode()).isEqualTo("full");
    }

    @Test
    void aJsonSummaryIsReadBeforeTheCsv() throws Exception {
        report("consistency-levels", "./neptune bench replication", "level,imbalance,saturation req/s", "L1,1,1");
        Files.writeString(directory.resolve("consistency-levels.json"), """
                {"name": "consistency-levels", "date": "2026-12-01T00:00:00Z", "machine": "2 cores",
                 "command": "./neptune bench replication --quick",
                 "columns": ["nodes", "replicas", "imbalance", "level", "saturation req/s"],
                 "rows": [["8", "4", "1", "L1", "600"], ["8", "4", "1", "L2", "500"]]}
                """);

        Outcome levelOne = row(ChapterFiveRows.rows(), "Fig. 5.3", "level 1 is 12%").evaluate(BenchData.in(directory));

        assertThat(levelOne.measured()).isNotNull();
        assertThat(levelOne.measured().value()).isCloseTo(20.0, offset(1e-9));
        assertThat(levelOne.measured().sources().get(0).run().day()).isEqualTo("2026-12-01");
    }

    @Test
    void theRawFloorIsTheBetterOfOneAndSeveralConnectionsAndSaysWhichWon() throws Exception {
        report("invocation-overhead", "./neptune bench overhead --quick",
                "system,callers,calls,failures,calls/s,p50 (µs),bytes/call",
                "raw Netty TCP 1 connection,1,100,0,20000,40.0,800",
                "raw Netty TCP 2 connections,1,100,0,19000,42.0,800",
                "Neptune fixed node,1,100,0,5000,150.0,3000",
                "raw Netty TCP 1 connection,64,100,0,100000,600,600",
                "raw Netty TCP 2 connections,64,100,0,160000,400,600",
                "Neptune fixed node,64,100,0,80000,800,2700");
        BenchData data = BenchData.in(directory);

        Outcome overhead = row(BeyondRows.rows(), "Ch. 2", "97 µs").evaluate(data);
        Outcome callPath = row(BeyondRows.rows(), "call path", "64 callers").evaluate(data);

        assertThat(overhead.measured().value()).as("150 − the lower p50, 40").isEqualTo(110.0);
        assertThat(overhead.measured().text()).isEqualTo("110 µs (p50 150 against 40 µs, 1 connection)");
        assertThat(callPath.measured().text()).isEqualTo(
                "0.5× raw Netty's calls/s (80000 against 160000, 2 connections), 2700 bytes allocated per call");
    }

    @Test
    void aReportWithOneRawRowStillGivesTheFloor() throws Exception {
        report("invocation-overhead", "./neptune bench overhead --quick",
                "system,callers,calls,failures,calls/s,p50 (µs),bytes/call",
                "raw Netty TCP,1,100,0,20000,38.3,800",
                "Neptune fixed node,1,100,0,5000,153.3,3000");
        BenchData data = BenchData.in(directory);

        Outcome overhead = row(BeyondRows.rows(), "Ch. 2", "97 µs").evaluate(data);

        assertThat(overhead.measured().text()).isEqualTo("115 µs (p50 153 against 38.3 µs)");
    }

    @Test
    void figureFiveOneNodeAxisReadsTheNodesRunAndNotTheQuickRunOfOneNodeCount() throws Exception {
        String header = "nodes,replicas,level,writes %,saturation req/s,model req/s,vs NoRep,p50 ms,p99 ms,"
                + "reads at primary %,steps,load 1m";
        report("replication-scalability", "./neptune bench replication --quick", header,
                "4,NoRep,L2,10,797,607,1.00,873,1787,100,4,2.03");
        Row nodeAxis = row(ChapterFiveRows.rows(), "Fig. 5.1", "grows with the nodes");
        assertThat(nodeAxis.evaluate(BenchData.in(directory)).verdict()).as("one node count").isEqualTo(Verdict.NOT_RUN);
        assertThat(nodeAxis.notRun()).contains("./neptune bench replication --nodes");

        report("replication-nodes", "./neptune bench replication --nodes", header,
                "2,NoRep,L2,10,300,304,1.00,20,90,100,7,1.0",
                "2,2 replicas,L2,10,280,290,0.93,20,90,50,7,1.0",
                "8,NoRep,L2,10,1080,1214,1.00,20,90,100,7,1.0");
        Outcome outcome = nodeAxis.evaluate(BenchData.in(directory));

        assertThat(outcome.measured()).isNotNull();
        assertThat(outcome.measured().value()).as("1080 / 300 over 4× the nodes").isCloseTo(0.9, offset(1e-9));
        assertThat(outcome.measured().text()).isEqualTo("0.9× (300 → 1080 req/s on 2 → 8 nodes)");
        assertThat(outcome.verdict()).as("0.9 is within 20% of at least 1").isEqualTo(Verdict.AGREES);
    }

    private void report(String name, String command, String... lines) throws Exception {
        Files.writeString(directory.resolve(name + ".csv"), String.join("\n", lines) + "\n");
        Files.writeString(directory.resolve(name + ".md"), "# " + name + "\n\n- Date: 2026-11-22T06:00:09Z\n"
                + "- Machine: 2 cores, test, Java 17\n- Command: `" + command + "`\n");
    }

    private static Row row(List<Row> rows, String figure, String claimPart) {
        return rows.stream().filter(r -> r.claim().figure().equals(figure) && r.claim().claim().contains(claimPart))
                .reduce((a, b) -> {
                    throw new AssertionError("two rows match " + figure + " " + claimPart);
                }).orElseThrow(() -> new AssertionError("no row " + figure + " " + claimPart));
    }
}
