package io.neptune.server.storage.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The snapshot of one partition of a {@code PartitionDatabase}: the rows of that partition in every
 * table of schema {@code PUBLIC} that has a {@code PARTITION_ID} column, streamed row by row (never
 * held whole in memory), and the partition's applied LSN. H2's own {@code SCRIPT}/{@code BACKUP}
 * cover a whole database, and one database holds every partition a node hosts of its service, so
 * they cannot export or replace one partition; this format can. Big-endian, through
 * {@link DataOutputStream}:
 *
 * <pre>
 * magic:int32 "NSNP" | version:int32 1 | partition:int32 | lsn:int64
 * table*:  'T' | name:text | columns:int32 | column name:text * columns | row* | 'E'
 * row:     'R' | value * columns
 * value:   0 null | 1 int64 | 2 float64 | 3 text | 4 bytes | 5 boolean | 6 decimal as text | 7 other as text
 * end:     'Z'
 * text:    length:int32 | UTF-8;  bytes: length:int32 | bytes
 * </pre>
 *
 * <p>The schema is not in the snapshot: the service creates it when it starts, on every replica.
 *
 * <p>A snapshot comes from a peer, so a restore trusts none of its names: each table must be a table
 * of schema {@code PUBLIC} with a {@code PARTITION_ID} column in the local database, and each column
 * a column of that local table, named exactly as H2 reports them ({@code INFORMATION_SCHEMA}; an
 * unquoted {@code t} is {@code T}). A snapshot naming anything else is refused with
 * {@code NEP-SNAP-007} before the name reaches SQL, and every identifier that does reach SQL is quoted
 * as well ({@code "..."} with inner quotes doubled), so no name can end one and start another
 * statement. The rows a restore inserts take the local partition id, whatever the stream says.
 *
 * <p>Thread-safety: stateless; the caller provides the connection and its transaction.
 */
public final class PartitionSnapshotCodec {
    private static final int MAGIC = 0x4E534E50;   // "NSNP"
    private static final int VERSION = 1;
    private static final String APPLIED_TABLE = "NEPTUNE_APPLIED";
    private static final String SCHEMA = "PUBLIC";
    private static final String PARTITION_COLUMN = "PARTITION_ID";
    /** The code a refused table or column name's message starts with (docs/OPERATIONS.md). */
    private static final String REFUSED = "NEP-SNAP-007";
    /** At most this many characters of a refused name go into its message (and so into a log line). */
    private static final int MAX_SHOWN = 100;
    private static final int INSERT_BATCH = 500;
    private static final int MAX_TEXT_BYTES = 256 * 1024 * 1024;

    private PartitionSnapshotCodec() {}

    /**
     * Writes {@code partition}'s rows and its applied LSN {@code lsn}, all read through
     * {@code connection} (whose transaction is one snapshot), to {@code out}.
     *
     * @throws IllegalStateException if a table that holds rows has no {@code PARTITION_ID} column:
     *     its rows cannot be told apart by partition
     */
    public static void write(Connection connection, int partition, long lsn, OutputStream out)
            throws SQLException, IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(MAGIC);
        data.writeInt(VERSION);
        data.writeInt(partition);
        data.writeLong(lsn);
        for (String table : tables(connection)) {
            if (!hasPartitionColumn(connection, table)) {
                if (hasRows(connection, table)) {
                    throw new IllegalStateException("table " + table + " holds rows but has no PARTITION_ID column"
                            + " (expected: every table with replicated state has one, so a partition's rows can be"
                            + " exported)");
                }
                continue;
            }
            writeTable(connection, table, partition, data);
        }
        data.writeByte('Z');
        data.flush();
    }

    /**
     * Replaces {@code partition}'s rows with the snapshot in {@code in} through {@code connection}
     * (the caller commits), and returns the snapshot's LSN.
     *
     * @throws IllegalArgumentException if {@code in} is not a snapshot of {@code partition}, or
     *     (with a message starting with {@code NEP-SNAP-007}) names a table that is not a local table of
     *     schema {@code PUBLIC} with a {@code PARTITION_ID} column, a column that is not one of that
     *     table's, a column twice, or no {@code PARTITION_ID} column; the caller rolls back what was
     *     changed before
     */
    public static long read(Connection connection, int partition, InputStream in) throws SQLException, IOException {
        DataInputStream data = new DataInputStream(in);
        int magic = data.readInt();
        int version = data.readInt();
        if (magic != MAGIC || version != VERSION) {
            throw new IllegalArgumentException("snapshot header: magic 0x" + Integer.toHexString(magic) + ", version "
                    + version + " (expected: \"NSNP\", version " + VERSION + ")");
        }
        int snapshotPartition = data.readInt();
        if (snapshotPartition != partition) {
            throw new IllegalArgumentException("snapshot partition: " + snapshotPartition + " (expected: " + partition
                    + ")");
        }
        long lsn = data.readLong();
        List<String> partitioned = new ArrayList<>();
        for (String table : tables(connection)) {
            if (hasPartitionColumn(connection, table)) {
                partitioned.add(table);
                try (PreparedStatement delete = connection.prepareStatement(
                        "DELETE FROM " + qualified(table) + " WHERE " + quote(PARTITION_COLUMN) + " = ?")) {
                    delete.setInt(1, partition);
                    delete.executeUpdate();
                }
            }
        }
        while (true) {
            int tag = data.readUnsignedByte();
            if (tag == 'Z') {
                return lsn;
            }
            if (tag != 'T') {
                throw new IllegalArgumentException("snapshot tag: " + tag + " (expected: 'T' or 'Z')");
            }
            readTable(connection, partition, partitioned, data);
        }
    }

    private static List<String> tables(Connection connection) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES"
                     + " WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME")) {
            while (rows.next()) {
                String table = rows.getString(1);
                if (!table.equalsIgnoreCase(APPLIED_TABLE)) {
                    tables.add(table);
                }
            }
        }
        return tables;
    }

    private static boolean hasPartitionColumn(Connection connection, String table) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM"
                + " INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?")) {
            statement.setString(1, SCHEMA);
            statement.setString(2, table);
            statement.setString(3, PARTITION_COLUMN);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getInt(1) > 0;
            }
        }
    }

    private static boolean hasRows(Connection connection, String table) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT 1 FROM " + qualified(table) + " LIMIT 1")) {
            return rows.next();
        }
    }

    private static void writeTable(Connection connection, String table, int partition, DataOutputStream data)
            throws SQLException, IOException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT * FROM " + qualified(table) + " WHERE " + quote(PARTITION_COLUMN) + " = ?")) {
            select.setInt(1, partition);
            select.setFetchSize(1000);
            try (ResultSet rows = select.executeQuery()) {
                ResultSetMetaData meta = rows.getMetaData();
                int columns = meta.getColumnCount();
                data.writeByte('T');
                writeText(data, table);
                data.writeInt(columns);
                for (int c = 1; c <= columns; c++) {
                    writeText(data, meta.getColumnName(c));
                }
                while (rows.next()) {
                    data.writeByte('R');
                    for (int c = 1; c <= columns; c++) {
                        writeValue(data, rows, c, meta.getColumnType(c));
                    }
                }
                data.writeByte('E');
            }
        }
    }

    private static void writeValue(DataOutputStream data, ResultSet rows, int column, int type)
            throws SQLException, IOException {
        switch (type) {
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER, Types.BIGINT -> {
                long value = rows.getLong(column);
                if (nullValue(data, rows)) {
                    return;
                }
                data.writeByte(1);
                data.writeLong(value);
            }
            case Types.REAL, Types.FLOAT, Types.DOUBLE -> {
                double value = rows.getDouble(column);
                if (nullValue(data, rows)) {
                    return;
                }
                data.writeByte(2);
                data.writeDouble(value);
            }
            case Types.CHAR, Types.VARCHAR, Types.LONGVARCHAR, Types.CLOB, Types.NCHAR, Types.NVARCHAR -> {
                String value = rows.getString(column);
                if (!nullValue(data, rows)) {
                    data.writeByte(3);
                    writeText(data, value);
                }
            }
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> {
                byte[] value = rows.getBytes(column);
                if (!nullValue(data, rows)) {
                    data.writeByte(4);
                    data.writeInt(value.length);
                    data.write(value);
                }
            }
            case Types.BOOLEAN, Types.BIT -> {
                boolean value = rows.getBoolean(column);
                if (!nullValue(data, rows)) {
                    data.writeByte(5);
                    data.writeBoolean(value);
                }
            }
            case Types.DECIMAL, Types.NUMERIC -> {
                BigDecimal value = rows.getBigDecimal(column);
                if (!nullValue(data, rows)) {
                    data.writeByte(6);
                    writeText(data, value.toString());
                }
            }
            default -> {
                String value = rows.getString(column);   // H2 parses its own text form back on insert
                if (!nullValue(data, rows)) {
                    data.writeByte(7);
                    writeText(data, value);
                }
            }
        }
    }

    private static boolean nullValue(DataOutputStream data, ResultSet rows) throws SQLException, IOException {
        if (rows.wasNull()) {
            data.writeByte(0);
            return true;
        }
        return false;
    }

    private static void readTable(Connection connection, int partition, List<String> partitioned,
            DataInputStream data) throws SQLException, IOException {
        String table = readText(data);
        int columns = data.readInt();
        if (columns < 1 || columns > 4096) {
            throw new IllegalArgumentException("table " + table + " columns: " + columns + " (expected: 1..4096)");
        }
        List<String> names = new ArrayList<>();
        for (int c = 0; c < columns; c++) {
            names.add(readText(data));
        }
        checkNames(connection, partitioned, table, names);
        int partitionColumn = names.indexOf(PARTITION_COLUMN);
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(qualified(table)).append(" (");
        for (int c = 0; c < columns; c++) {
            sql.append(c == 0 ? "" : ", ").append(quote(names.get(c)));
        }
        sql.append(") VALUES (").append("?, ".repeat(columns - 1)).append("?)");
        try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
            int batched = 0;
            while (true) {
                int tag = data.readUnsignedByte();
                if (tag == 'E') {
                    break;
                }
                if (tag != 'R') {
                    throw new IllegalArgumentException("snapshot tag in table " + table + ": " + tag
                            + " (expected: 'R' or 'E')");
                }
                for (int c = 0; c < columns; c++) {
                    readValue(data, insert, c + 1);
                }
                insert.setInt(partitionColumn + 1, partition);
                insert.addBatch();
                if (++batched == INSERT_BATCH) {
                    insert.executeBatch();
                    batched = 0;
                }
            }
            if (batched > 0) {
                insert.executeBatch();
            }
        }
    }

    /**
     * Refuses, with {@code NEP-SNAP-007}, a snapshot {@code table} that is not one of the local
     * {@code partitioned} tables, or {@code columns} that are not distinct columns of it including
     * {@code PARTITION_ID}; names compare exactly as {@code INFORMATION_SCHEMA} reports them.
     */
    private static void checkNames(Connection connection, List<String> partitioned, String table, List<String> columns)
            throws SQLException {
        if (!partitioned.contains(table)) {
            throw refused("snapshot table", shown(table), "a table of schema " + SCHEMA + " with a " + PARTITION_COLUMN
                    + " column: " + partitioned);
        }
        List<String> local = columns(connection, table);
        Set<String> seen = new HashSet<>();
        for (String column : columns) {
            if (!local.contains(column)) {
                throw refused("snapshot column of " + table, shown(column), "a column of " + table + ": " + local);
            }
            if (!seen.add(column)) {
                throw refused("snapshot column of " + table, shown(column), "each column once");
            }
        }
        if (!seen.contains(PARTITION_COLUMN)) {
            throw refused("snapshot columns of " + table, columns.toString(), PARTITION_COLUMN + " among them");
        }
    }

    /** The columns of local table {@code table} of schema {@code PUBLIC}, in their order. */
    private static List<String> columns(Connection connection, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement("SELECT COLUMN_NAME FROM"
                + " INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
            statement.setString(1, SCHEMA);
            statement.setString(2, table);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    columns.add(rows.getString(1));
                }
            }
        }
        return columns;
    }

    private static IllegalArgumentException refused(String name, String value, String expected) {
        return new IllegalArgumentException(REFUSED + " " + name + ": " + value + " (expected: " + expected + ")");
    }

    /**
     * {@code name} from a peer as a message shows it: in single quotes, each control or line-separator
     * character as a backslash, {@code u} and four hex digits (so the name cannot start a log line of
     * its own), and cut after {@value #MAX_SHOWN} characters.
     */
    private static String shown(String name) {
        StringBuilder shown = new StringBuilder("'");
        for (int i = 0; i < Math.min(name.length(), MAX_SHOWN); i++) {
            char c = name.charAt(i);
            int type = Character.getType(c);
            if (Character.isISOControl(c) || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) {
                shown.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                shown.append(c);
            }
        }
        shown.append(name.length() > MAX_SHOWN ? "...' (" + name.length() + " chars)" : "'");
        return shown.toString();
    }

    /** {@code identifier} as an H2 quoted identifier: in double quotes, a double quote in it doubled. */
    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** Local table {@code table} of schema {@code PUBLIC}, quoted. */
    private static String qualified(String table) {
        return quote(SCHEMA) + "." + quote(table);
    }

    private static void readValue(DataInputStream data, PreparedStatement insert, int index)
            throws SQLException, IOException {
        int tag = data.readUnsignedByte();
        switch (tag) {
            case 0 -> insert.setObject(index, null);
            case 1 -> insert.setLong(index, data.readLong());
            case 2 -> insert.setDouble(index, data.readDouble());
            case 3, 7 -> insert.setString(index, readText(data));
            case 4 -> {
                int length = data.readInt();
                checkLength(length);
                byte[] bytes = new byte[length];
                data.readFully(bytes);
                insert.setBytes(index, bytes);
            }
            case 5 -> insert.setBoolean(index, data.readBoolean());
            case 6 -> insert.setBigDecimal(index, new BigDecimal(readText(data)));
            default -> throw new IllegalArgumentException("snapshot value tag: " + tag + " (expected: 0..7)");
        }
    }

    private static void writeText(DataOutputStream data, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        data.writeInt(bytes.length);
        data.write(bytes);
    }

    private static String readText(DataInputStream data) throws IOException {
        int length = data.readInt();
        checkLength(length);
        byte[] bytes = new byte[length];
        data.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void checkLength(int length) {
        if (length < 0 || length > MAX_TEXT_BYTES) {
            throw new IllegalArgumentException("snapshot value length: " + length + " (expected: 0.." + MAX_TEXT_BYTES
                    + ")");
        }
    }
}
