package io.neptune.benchmarks.nemesis.check;

import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import java.util.ArrayList;
import java.util.List;

/** Runs every checker that applies to a history. Thread-safety: stateless. */
public final class Checkers {
    private Checkers() {}

    /**
     * Runs the checkers that apply under {@code guarantees}: at every level {@link LostWritesChecker},
     * {@link DuplicatesChecker}, {@link PhantomReadsChecker} and {@link DivergenceChecker}; with ordered
     * writes (levels 2 and 3) also {@link ListAppendChecker}; at level 3 also {@link SessionChecker} and
     * {@link StalenessChecker}. Level-2 reads may be stale, so session and real-time order are not
     * checked there.
     */
    public static CheckReport checkAll(History history, FinalState state, Guarantees guarantees) {
        List<Verdict> verdicts = new ArrayList<>();
        verdicts.add(LostWritesChecker.check(history, state));
        verdicts.add(DuplicatesChecker.check(history, state));
        verdicts.add(PhantomReadsChecker.check(history, state));
        verdicts.add(DivergenceChecker.check(state, guarantees));
        if (guarantees.orderedWrites()) {
            verdicts.add(ListAppendChecker.check(history, state, guarantees));
        }
        if (guarantees.sessions()) {
            verdicts.add(SessionChecker.check(history));
            verdicts.add(StalenessChecker.check(history, guarantees));
        }
        return new CheckReport(history.toString(), guarantees, verdicts);
    }
}
