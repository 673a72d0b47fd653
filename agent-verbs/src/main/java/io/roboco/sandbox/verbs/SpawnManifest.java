package io.roboco.sandbox.verbs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an agent gets at spawn: the verbs of its role, the marker env
 * ({@code ROBOCO_SANDBOX_SERVICES_AVAILABLE=<csv>}, only for a role carrying {@code request_sandbox}
 * in an opted-in project while the flag is effective) and briefing lines (exactly one naming
 * {@code request_sandbox()} when the marker is present). Never a credential.
 */
public record SpawnManifest(
        String agent, String role, String project, List<String> verbs, Map<String, String> env, List<String> briefing) {
    public static final String SERVICES_MARKER = "ROBOCO_SANDBOX_SERVICES_AVAILABLE";

    public SpawnManifest {
        verbs = List.copyOf(verbs);
        env = Map.copyOf(env);
        briefing = List.copyOf(briefing);
    }

    /** The briefing line for an agent that may call {@code request_sandbox()}. */
    public static String sandboxBriefing(List<String> services) {
        return "Throwaway test databases (" + String.join(", ", services) + ") are available: call request_sandbox() "
                + "when your work needs one; never use production credentials.";
    }

    /** JSON-ready form. */
    public Map<String, Object> asMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("agent", agent);
        map.put("role", role);
        map.put("project", project);
        map.put("verbs", verbs);
        map.put("env", env);
        map.put("briefing", briefing);
        return map;
    }
}
