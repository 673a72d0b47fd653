package io.roboco.sandbox.inspect.sql;

import java.util.List;
import java.util.stream.Collectors;

/** What {@link QueryGuard} decided about one statement. */
public sealed interface GuardVerdict {

    /**
     * The statement may run (inside a read-only, rolled-back transaction).
     *
     * @param kind           {@code select}, {@code with} or {@code explain}
     * @param explainAnalyze whether it is an EXPLAIN ANALYZE (which executes the explained statement)
     */
    record Allowed(String kind, boolean explainAnalyze) implements GuardVerdict {}

    /** Refused, with every violation found (the first few), so a caller can fix them all at once. */
    record Refused(List<Violation> violations) implements GuardVerdict {
        public Refused {
            violations = List.copyOf(violations);
            if (violations.isEmpty()) {
                throw new IllegalArgumentException("a refusal needs a reason");
            }
        }

        /** The rule of the first violation. */
        public String rule() {
            return violations.get(0).rule();
        }

        /** Every reason, joined with "; ". */
        public String reason() {
            return violations.stream().map(Violation::reason).collect(Collectors.joining("; "));
        }
    }
}
