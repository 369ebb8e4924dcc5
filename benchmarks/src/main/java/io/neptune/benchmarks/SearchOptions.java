package io.neptune.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The command line of the saturation experiments: {@code [--quick] [--step-seconds N]
 * [--refinements K] [--variants REGEX]}, where the regular expression keeps the configurations
 * whose label it finds (e.g. {@code "L1|L3"} or {@code "auction"}). Immutable.
 *
 * @param quick whether {@code --quick} was given
 * @param step the step length, {@code --step-seconds} or the mode's default
 * @param refinements bisection steps, {@code --refinements} or the mode's default
 * @param variants the filter on labels; matches everything when not given
 */
record SearchOptions(boolean quick, Duration step, int refinements, Pattern variants) {
    /** Parses {@code args}; the defaults of a mode come from {@code quickDefaults} and {@code fullDefaults}. */
    static SearchOptions parse(List<String> args, SearchOptions quickDefaults, SearchOptions fullDefaults) {
        SearchOptions defaults = args.contains("--quick") ? quickDefaults : fullDefaults;
        Duration step = defaults.step();
        int refinements = defaults.refinements();
        Pattern variants = defaults.variants();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--quick")) {
                continue;
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException("option " + arg + " (expected: --quick, --step-seconds N,"
                        + " --refinements K or --variants REGEX)");
            }
            String value = args.get(++i);
            switch (arg) {
                case "--step-seconds" -> step = Duration.ofSeconds(Long.parseLong(value));
                case "--refinements" -> refinements = Integer.parseInt(value);
                case "--variants" -> variants = Pattern.compile(value);
                default -> throw new IllegalArgumentException("option: " + arg + " (expected: --quick, --step-seconds,"
                        + " --refinements or --variants)");
            }
        }
        return new SearchOptions(defaults.quick(), step, refinements, variants);
    }

    /** The defaults of one mode, keeping every configuration. */
    static SearchOptions defaults(boolean quick, Duration step, int refinements) {
        return new SearchOptions(quick, step, refinements, Pattern.compile(""));
    }

    /** The configurations of {@code all} whose label the filter finds. */
    <T> List<T> keep(List<T> all, Function<T, String> label) {
        return all.stream().filter(v -> variants.matcher(label.apply(v)).find()).toList();
    }
}
