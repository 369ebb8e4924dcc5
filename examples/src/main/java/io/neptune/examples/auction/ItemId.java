package io.neptune.examples.auction;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An auction item's id, {@code <partition>-<number>}: the partition routes a request on the item to
 * its category's partition without a lookup.
 *
 * @param partition the partition the item lives in
 * @param number its number within the partition (the LSN of the write that created it)
 */
public record ItemId(int partition, long number) {
    /** The canonical form only: no sign, no leading zeros, so one item has exactly one id. */
    private static final Pattern CANONICAL = Pattern.compile("(0|[1-9][0-9]*)-[1-9][0-9]*");

    /** Validates the fields. */
    public ItemId {
        if (partition < 0) {
            throw new IllegalArgumentException("item id partition: " + partition + " (expected: >= 0)");
        }
        if (number < 1) {
            throw new IllegalArgumentException("item id number: " + number + " (expected: >= 1)");
        }
    }

    /**
     * Parses {@code <partition>-<number>} in canonical form (decimal digits, no sign, no leading
     * zeros), failing with a message naming the id: {@code +17-001} is not another name of {@code 17-1}.
     */
    public static ItemId parse(@Nullable String text) {
        if (text == null) {
            throw new IllegalArgumentException("itemId: missing (expected: <partition>-<number>)");
        }
        int dash = text.indexOf('-');
        try {
            if (!CANONICAL.matcher(text).matches()) {
                throw new NumberFormatException();
            }
            return new ItemId(Integer.parseInt(text.substring(0, dash)), Long.parseLong(text.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("itemId: '" + text + "' (expected: <partition>-<number>)");
        }
    }

    @Override
    public String toString() {
        return partition + "-" + number;
    }
}
