package io.neptune.examples.auction;

import org.jspecify.annotations.Nullable;

/**
 * An auction item's id, {@code <partition>-<number>}: the partition routes a request on the item to
 * its category's partition without a lookup.
 *
 * @param partition the partition the item lives in
 * @param number its number within the partition (the LSN of the write that created it)
 */
public record ItemId(int partition, long number) {
    /** Validates the fields. */
    public ItemId {
        if (partition < 0) {
            throw new IllegalArgumentException("item id partition: " + partition + " (expected: >= 0)");
        }
        if (number < 1) {
            throw new IllegalArgumentException("item id number: " + number + " (expected: >= 1)");
        }
    }

    /** Parses {@code <partition>-<number>}, failing with a message naming the id. */
    public static ItemId parse(@Nullable String text) {
        if (text == null) {
            throw new IllegalArgumentException("itemId: missing (expected: <partition>-<number>)");
        }
        int dash = text.indexOf('-');
        try {
            if (dash < 1) {
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
