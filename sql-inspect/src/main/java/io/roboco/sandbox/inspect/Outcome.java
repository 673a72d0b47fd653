package io.roboco.sandbox.inspect;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one inspection tool call. Refusals and database errors are values, not exceptions: the
 * MCP layer turns {@link Refused} and {@link Failed} into tool results with {@code isError: true}.
 */
public sealed interface Outcome<T extends InspectionResult> {

    record Ok<T extends InspectionResult>(T result) implements Outcome<T> {}

    /**
     * The guard or the policy said no before the database was asked (or read-only could not be proven).
     *
     * @param rule    a stable code: the guard's ({@code multiple_statements}, {@code denied_column}, …) or
     *                {@code read_only_unproven}, {@code invalid_argument}, {@code not_found}
     * @param reasons every reason found, each a sentence saying what to do instead
     */
    record Refused<T extends InspectionResult>(String rule, List<String> reasons) implements Outcome<T> {
        public Refused {
            reasons = List.copyOf(reasons);
        }

        public String reason() {
            return String.join("; ", reasons);
        }
    }

    /**
     * The database answered with an error, or could not be reached.
     *
     * @param reason        our own sentence (trusted)
     * @param sqlState      the SQLSTATE, or null when there was none
     * @param databaseError the database's message, which may echo stored data: inside the envelope
     * @param retryable     true when the sandbox could not be reached (try again); false for an error in the statement
     */
    record Failed<T extends InspectionResult>(
            String reason, String sqlState, Untrusted<String> databaseError, boolean retryable) implements Outcome<T> {}

    /**
     * The project's envelope for this outcome: {@code {"ok":true,"tool":…,"evidence":{…}}},
     * {@code {"ok":false,"error":"refused","rule":…,"reason":…,"retryable":false}} or
     * {@code {"ok":false,"error":"query_failed"|"unavailable","reason":…,"sql_state":…,"database_error":{…},"retryable":…}}.
     */
    default Map<String, Object> toEnvelope(String tool) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (this instanceof Ok<T> ok) {
            out.put("ok", true);
            out.put("tool", tool);
            out.put("evidence", InspectJson.tree(ok.result()));
        } else if (this instanceof Refused<T> refused) {
            out.put("ok", false);
            out.put("error", "refused");
            out.put("rule", refused.rule());
            out.put("reason", refused.reason());
            out.put("retryable", false);
        } else if (this instanceof Failed<T> failed) {
            out.put("ok", false);
            out.put("error", failed.retryable() ? "unavailable" : "query_failed");
            out.put("reason", failed.reason());
            out.put("sql_state", failed.sqlState());
            out.put("database_error", InspectJson.tree(failed.databaseError()));
            out.put("retryable", failed.retryable());
        }
        return out;
    }
}
