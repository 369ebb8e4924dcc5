package io.neptune.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One report's table, as a bench wrote it to {@code docs/benchmarks/<name>.csv} (RFC 4180, the first
 * line naming the columns), with the run that produced it. Immutable.
 *
 * @param name the report's file stem, e.g. {@code load-balancing}
 * @param columns the header, in order
 * @param rows each row as column → cell text, in file order
 * @param run when and how the bench ran
 */
public record Table(String name, List<String> columns, List<Map<String, String>> rows, RunInfo run) {
    public Table {
        requireNonNull(name, "name");
        columns = List.copyOf(columns);
        rows = rows.stream().map(Map::copyOf).toList();
        requireNonNull(run, "run");
    }

    /**
     * Parses CSV text. A row with more cells than the header is an error, unless {@code widenColumn}
     * names the column whose text held unquoted commas (older reports wrote such cells unquoted, e.g.
     * {@code micro.csv}'s {@code case}): the surplus cells are then joined back into that column.
     */
    static Table parse(String name, String csv, RunInfo run, Optional<String> widenColumn) {
        List<List<String>> records = records(csv);
        if (records.isEmpty()) {
            throw new IllegalArgumentException(name + ".csv: empty (expected: a header line)");
        }
        List<String> header = records.get(0);
        int widen = widenColumn.map(header::indexOf).orElse(-1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (int r = 1; r < records.size(); r++) {
            List<String> cells = new ArrayList<>(records.get(r));
            int surplus = cells.size() - header.size();
            if (surplus > 0 && widen >= 0) {
                String joined = String.join(",", cells.subList(widen, widen + surplus + 1));
                cells.subList(widen, widen + surplus + 1).clear();
                cells.add(widen, joined);
            }
            if (cells.size() != header.size()) {
                throw new IllegalArgumentException(name + ".csv line " + (r + 1) + ": " + cells.size()
                        + " cells (expected: " + header.size() + ")");
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < header.size(); c++) {
                row.put(header.get(c), cells.get(c));
            }
            rows.add(row);
        }
        return new Table(name, header, rows, run);
    }

    /** Splits RFC 4180 text into records of cells: quoted cells may hold commas, quotes ("") and line breaks. */
    private static List<List<String>> records(String csv) {
        List<List<String>> records = new ArrayList<>();
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < csv.length(); i++) {
            char c = csv.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < csv.length() && csv.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < csv.length() && csv.charAt(i + 1) == '\n') {
                    i++;
                }
                cells.add(cell.toString());
                cell.setLength(0);
                records.add(cells);
                cells = new ArrayList<>();
            } else {
                cell.append(c);
            }
        }
        if (cell.length() > 0 || !cells.isEmpty()) {
            cells.add(cell.toString());
            records.add(cells);
        }
        return records;
    }

    /** The text of {@code column} in {@code row}; fails when the row has no such column. */
    public static String cell(Map<String, String> row, String column) {
        String text = row.get(column);
        if (text == null) {
            throw new IllegalArgumentException("column: " + column + " (expected: one of " + row.keySet() + ")");
        }
        return text;
    }

    /** The rows that pass {@code filter}, in file order, as a table of the same run. */
    public Table where(Predicate<Map<String, String>> filter) {
        return new Table(name, columns, rows.stream().filter(filter).toList(), run);
    }

    /** The rows whose {@code column} reads {@code value}. */
    public Table where(String column, String value) {
        requireColumn(column);
        return where(row -> value.equals(row.get(column)));
    }

    /** The single row left, failing with the filter's outcome when there is none or more than one. */
    public Map<String, String> only() {
        if (rows.size() != 1) {
            throw new IllegalStateException(name + ": " + rows.size() + " rows match (expected: 1)");
        }
        return rows.get(0);
    }

    /** The first row left, if any. */
    public Optional<Map<String, String>> first() {
        return rows.stream().findFirst();
    }

    /** The number in {@code column} of {@code row}; "-" or an empty cell is not a number and fails. */
    public double number(Map<String, String> row, String column) {
        requireColumn(column);
        String text = requireNonNull(row.get(column), "row of " + name + " without " + column).trim();
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(name + "." + column + ": " + text + " (expected: a number)", e);
        }
    }

    /** The number in {@code column} of the single row left. */
    public double number(String column) {
        return number(only(), column);
    }

    /** The distinct texts of {@code column}, in file order. */
    public List<String> distinct(String column) {
        requireColumn(column);
        return rows.stream().map(row -> row.get(column)).distinct().toList();
    }

    private void requireColumn(String column) {
        if (!columns.contains(column)) {
            throw new IllegalArgumentException(name + ": no column " + column + " (expected: one of " + columns + ")");
        }
    }
}
