package io.roboco.sandbox.verbs;

import io.roboco.sandbox.guard.Verbs;
import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.plugin.SandboxService;
import io.roboco.sandbox.settings.OwnedSandbox;
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

    /** The envelope for a {@code release_sandbox} outcome: {@code {"removed": n}}, or the guard chain's refusal. */
    public static Envelope of(SandboxService.ReleaseOutcome outcome) {
        if (outcome instanceof SandboxService.ReleaseOutcome.NotReleased refused) {
            return refused(refused.refusal().reason(), false);
        }
        return ok(Verbs.RELEASE_SANDBOX, Map.of("removed", outcome.removed()));
    }

    /** The envelope for a {@code request_sandbox} decision. */
    public static Envelope of(SandboxDecision decision) {
        if (decision instanceof SandboxDecision.Granted granted) {
            List<Object> sandboxes = new ArrayList<>();
            for (SandboxDecision.Grant grant : granted.sandboxes()) {
                sandboxes.add(sandbox(grant));
            }
            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("sandboxes", Collections.unmodifiableList(sandboxes));
            if (granted.sandboxId() != null && !granted.sandboxId().isEmpty()) {
                evidence.put("sandbox_id", granted.sandboxId());
            }
            if (granted.expires() != null) {
                evidence.put("expires", granted.expires().toString());
            }
            if (granted.expiredPrevious() != null) {
                evidence.put("expired_sandbox", granted.expiredPrevious());
                evidence.put(
                        "note",
                        "your previous sandbox " + granted.expiredPrevious() + " had expired and was removed; "
                                + "these are fresh services with new credentials (its data is gone)");
            }
            return ok(VerbNames.REQUEST_SANDBOX, evidence);
        }
        if (decision instanceof SandboxDecision.Refused refused) {
            Envelope envelope = refused(refused.reason(), refused.retryable());
            if (refused.ownerSandboxes().isEmpty()) {
                return envelope;
            }
            Map<String, Object> body = new LinkedHashMap<>(envelope.body);
            body.put("owner_sandboxes", ownerSandboxes(refused.ownerSandboxes()));
            return new Envelope(body);
        }
        if (decision instanceof SandboxDecision.InvalidState) {
            SandboxDecision.InvalidState invalid = (SandboxDecision.InvalidState) decision;
            Envelope envelope = invalidState(invalid.reason(), invalid.retryable());
            if (invalid.queue() == null) {
                return envelope;
            }
            // The start queue refused it: where it stood, as fields a client can act on (the reason says the same).
            Map<String, Object> body = new LinkedHashMap<>(envelope.body);
            body.put("queue_position", invalid.queue().position());
            body.put("queue_length", invalid.queue().length());
            body.put("estimated_wait_seconds", invalid.queue().estimatedWaitSeconds());
            return new Envelope(body);
        }
        throw new IllegalArgumentException(
                "unknown decision type " + decision.getClass().getName());
    }

    /** The owner's live sandboxes as a quota refusal lists them: id, name, project, labels, expiry. */
    public static List<Object> ownerSandboxes(List<OwnedSandbox> owned) {
        List<Object> out = new ArrayList<>();
        for (OwnedSandbox o : owned) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("id", o.id());
            entry.put("name", o.name());
            entry.put("project", o.project());
            entry.put("labels", new TreeMap<>(o.labels()));
            entry.put("expires", o.expires().toString());
            out.add(Collections.unmodifiableMap(entry));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * One service entry: service, env, the features list under the engine's key (omitted when it has none), and the
     * container's {@code limits} ({@code {"memory":"512m","data_size":"256m","cpus":1}}).
     */
    private static Map<String, Object> sandbox(SandboxDecision.Grant grant) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("service", grant.service());
        entry.put("env", Collections.unmodifiableMap(new TreeMap<>(grant.env())));
        if (grant.featuresKey() != null) {
            entry.put(grant.featuresKey(), List.copyOf(grant.features()));
        }
        if (!grant.limits().isEmpty()) {
            Map<String, Object> limits = new LinkedHashMap<>();
            for (String key : List.of("memory", "data_size", "cpus")) {
                if (grant.limits().containsKey(key)) {
                    limits.put(key, grant.limits().get(key));
                }
            }
            entry.put("limits", Collections.unmodifiableMap(limits));
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
        return ok()
                ? "Envelope[ok, verb=" + body.get("verb") + "]"
                : "Envelope[" + error() + ", retryable=" + body.get("retryable") + "]";
    }
}
