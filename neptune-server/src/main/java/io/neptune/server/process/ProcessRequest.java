package io.neptune.server.process;

import java.util.List;
import java.util.Objects;

/**
 * A call of a process-backed service's {@code run} method. Immutable.
 *
 * @param input the program's input, written to its stdin as UTF-8 (per request: then closed; warm:
 *     as one frame); absent in JSON means empty
 * @param args arguments for the command's {@code {args}} element, each one argument passed as is
 *     (no shell); only a {@link ProcessMode#PER_REQUEST} command with {@code {args}} takes any
 */
public record ProcessRequest(String input, List<String> args) {
    /** Validates and copies; a {@code null} from a JSON document without the field is empty. */
    public ProcessRequest {
        input = Objects.requireNonNullElse(input, "");
        args = List.copyOf(Objects.requireNonNullElse(args, List.of()));
    }

    /** A request with {@code input} and no arguments. */
    public static ProcessRequest of(String input) {
        return new ProcessRequest(input, List.of());
    }
}
