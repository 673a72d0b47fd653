package io.roboco.sandbox.verbs;

import io.roboco.sandbox.plugin.SandboxDecision;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A verb's answer, as a JSON-ready map (strings, booleans, numbers, lists and maps only). Three shapes,
 * all answered with HTTP 200:
 * <pre>
 * {"ok":true,"verb":"request_sandbox","evidence":{...}}
 * {"ok":false,"error":"refused","reason":"…","retryable":false}
 * {"ok":false,"error":"invalid_state","reason":"…","retryable":true}
 * </pre>
 * An ok-envelope of {@code request_sandbox} is the only place credentials ever appear, so
 * {@link #toString()} never prints the body.
 */
public final class Envelope {
    public static final String REFUSED = "refused";
    public static final String INVALID_STATE = "invalid_state";

    private final Map<String, Object> body;

    private Envelope(Map<String, Object> body) {
        this.body = Collections.unmodifiableMap(body);
    }

    public static Envelope ok(String verb, Map<String, Object> evidence) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", true);
        body.put("verb", verb);
        body.put("evidence", Collections.unmodifiableMap(new LinkedHashMap<>(evidence)));
        return new Envelope(body);
    }

    public static Envelope refused(String reason, boolean retryable) {
        return failure(REFUSED, reason, retryable);
    }

    public static Envelope invalidState(String reason, boolean retryable) {
        return failure(INVALID_STATE, reason, retryable);
    }

    /** The envelope for a {@code request_sandbox} decision. */
    public static Envelope of(SandboxDecision decision) {
        if (decision instanceof SandboxDecision.Granted) {
            List<Object> sandboxes = new ArrayList<>();
            for (SandboxDecision.Grant grant : ((SandboxDecision.Granted) decision).sandboxes()) {
                sandboxes.add(sandbox(grant));
            }
            return ok(VerbNames.REQUEST_SANDBOX, Map.of("sandboxes", Collections.unmodifiableList(sandboxes)));
        }
        if (decision instanceof SandboxDecision.Refused) {
            SandboxDecision.Refused refused = (SandboxDecision.Refused) decision;
            return refused(refused.reason(), refused.retryable());
        }
        if (decision instanceof SandboxDecision.InvalidState) {
            SandboxDecision.InvalidState invalid = (SandboxDecision.InvalidState) decision;
            return invalidState(invalid.reason(), invalid.retryable());
        }
        throw new IllegalArgumentException("unknown decision type " + decision.getClass().getName());
    }

    /** One service entry: service, env, and the features list under the engine's key (omitted when it has none). */
    private static Map<String, Object> sandbox(SandboxDecision.Grant grant) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("service", grant.service());
        entry.put("env", Collections.unmodifiableMap(new TreeMap<>(grant.env())));
        if (grant.featuresKey() != null) {
            entry.put(grant.featuresKey(), List.copyOf(grant.features()));
        }
        return Collections.unmodifiableMap(entry);
    }

    private static Envelope failure(String error, String reason, boolean retryable) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ok", false);
        body.put("error", error);
        body.put("reason", reason == null ? "" : reason);
        body.put("retryable", retryable);
        return new Envelope(body);
    }

    public boolean ok() {
        return Boolean.TRUE.equals(body.get("ok"));
    }

    /** {@code refused}, {@code invalid_state}, or null for an ok-envelope. */
    public String error() {
        return (String) body.get("error");
    }

    /** The JSON-ready body. */
    public Map<String, Object> asMap() {
        return body;
    }

    /** Never the body: an ok-envelope may carry credentials. */
    @Override
    public String toString() {
        return ok() ? "Envelope[ok, verb=" + body.get("verb") + "]"
                : "Envelope[" + error() + ", retryable=" + body.get("retryable") + "]";
    }
}
