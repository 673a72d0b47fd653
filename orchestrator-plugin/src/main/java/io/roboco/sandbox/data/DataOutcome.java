package io.roboco.sandbox.data;

import java.util.Map;

/** The outcome of one data operation on a sandbox: the verb layer turns it into an envelope. */
public sealed interface DataOutcome {

    /** It ran; {@code evidence} is the answer (JSON-ready: maps, lists, strings, numbers, booleans). */
    record Done(Map<String, Object> evidence) implements DataOutcome {
        public Done {
            evidence = Map.copyOf(evidence);
        }
    }

    /** It may not run as asked (no sandbox, no postgres, no such snapshot); the reason says what to do. */
    record Refused(String reason) implements DataOutcome {}

    /** It failed while running (the database did not answer, a copy failed); nothing half-done was left. */
    record Failed(String reason, boolean retryable) implements DataOutcome {}
}
