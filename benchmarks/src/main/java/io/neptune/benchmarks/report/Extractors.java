package io.neptune.benchmarks.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** Small pieces the rows' extractors share: reading a table that may be absent, and printing ranges. */
final class Extractors {
    private Extractors() {}

    /** The report {@code name}, empty when it is not committed or holds no rows. */
    static Optional<Table> table(BenchData data, String name) {
        return data.table(name).filter(table -> !table.rows().isEmpty());
    }

    /** Every report of {@code names}, in order, or empty when any of them is not committed or holds no rows. */
    static Optional<List<Table>> tables(BenchData data, List<String> names) {
        List<Table> tables = new ArrayList<>();
        for (String name : names) {
            Optional<Table> table = table(data, name);
            if (table.isEmpty()) {
                return Optional.empty();
            }
            tables.add(table.get());
        }
        return Optional.of(tables);
    }

    /** The rows of {@code table} that pass every (column, value) pair, empty when none does. */
    static Optional<Table> rows(Table table, String... columnValuePairs) {
        Table left = table;
        for (int i = 0; i < columnValuePairs.length; i += 2) {
            left = left.where(columnValuePairs[i], columnValuePairs[i + 1]);
        }
        return left.rows().isEmpty() ? Optional.empty() : Optional.of(left);
    }

    /** The number in {@code column} of the single row that passes the pairs, if there is one. */
    static Optional<Double> number(Table table, String column, String... columnValuePairs) {
        return rows(table, columnValuePairs).map(t -> t.number(column));
    }

    /** "a" when every value prints alike, else "a–b" from the lowest to the highest. */
    static String range(Collection<Double> values) {
        DoubleSummaryStatistics stats = values.stream().mapToDouble(Double::doubleValue).summaryStatistics();
        String low = Claim.format(stats.getMin());
        String high = Claim.format(stats.getMax());
        return low.equals(high) ? low : low + "–" + high;
    }

    /** A signed percentage, e.g. "+13.3%" or "−2%". */
    static String signedPercent(double percent) {
        String text = Claim.format(Math.abs(percent)) + "%";
        return percent < 0 ? "−" + text : "+" + text;
    }

    /** The numbers of {@code column} of every row of {@code table}, mapped by {@code f}. */
    static List<Double> numbers(Table table, String column, Function<Double, Double> f) {
        return table.rows().stream().map(row -> f.apply(table.number(row, column))).toList();
    }

    /** The replication degree of a row's {@code replicas} cell, 1 for "NoRep". */
    static int degree(Map<String, String> row) {
        String replicas = row.getOrDefault("replicas", "NoRep");
        return replicas.equals("NoRep") ? 1 : Integer.parseInt(replicas);
    }
}
