package io.neptune.testing;

import java.lang.reflect.AnnotatedType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Checks what a decoder returned the way the code that consumes it assumes: NullAway promises that a
 * record component without {@link Nullable} is never null, and a decoder that builds a record from
 * bytes (Jackson leaves a missing field null) can break that promise where no compiler looks. Used
 * by the fuzz tests (docs/SECURITY.md, Fuzzing).
 */
public final class DecodedValues {
    private DecodedValues() {}

    /**
     * Throws an {@link AssertionError} naming the path of the first null in {@code value}: a record
     * component not marked {@link Nullable}, or an element, key or value of a collection or map held
     * by one. Walks nested records, lists and maps.
     */
    public static void assertNoUnexpectedNulls(Object value) {
        check(value, value.getClass().getSimpleName());
    }

    private static void check(@Nullable Object value, String path) {
        if (value instanceof Record record) {
            for (RecordComponent component : record.getClass().getRecordComponents()) {
                Object field = read(component, record);
                if (field == null) {
                    if (!nullable(component.getAnnotatedType())) {
                        throw new AssertionError(path + "." + component.getName() + " is null (expected: a value;"
                                + " the component is not @Nullable)");
                    }
                } else {
                    check(field, path + "." + component.getName());
                }
            }
        } else if (value instanceof Collection<?> collection) {
            int i = 0;
            for (Object element : collection) {
                if (element == null) {
                    throw new AssertionError(path + "[" + i + "] is null (expected: no null elements)");
                }
                check(element, path + "[" + i + "]");
                i++;
            }
        } else if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                if (entry.getKey() == null || entry.getValue() == null) {
                    throw new AssertionError(path + " maps " + entry.getKey() + " to " + entry.getValue()
                            + " (expected: no null keys or values)");
                }
                check(entry.getValue(), path + "[" + entry.getKey() + "]");
            }
        }
    }

    private static boolean nullable(AnnotatedType type) {
        return type.isAnnotationPresent(Nullable.class);
    }

    private static @Nullable Object read(RecordComponent component, Record record) {
        try {
            component.getAccessor().setAccessible(true);
            return component.getAccessor().invoke(record);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new AssertionError("cannot read " + component, e);
        }
    }
}
