package io.roboco.sandbox.provision;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The labels that carry ownership on every sandbox container, so a fresh process (the janitor, an
 * operator with {@code docker ps --filter label=roboco.sandbox=1}) can tell ours from others' without
 * a database. Never a credential.
 */
public final class SandboxLabels {
    public static final String SANDBOX = "roboco.sandbox";
    public static final String AGENT = "roboco.sandbox.agent";
    public static final String SERVICE = "roboco.sandbox.service";
    public static final String PROJECT = "roboco.sandbox.project";
    public static final String INSTANCE = "roboco.sandbox.instance";
    public static final String CREATED = "roboco.sandbox.created";
    /** The Postgres (or other engine's) major the container runs, when its image says. */
    public static final String MAJOR = "roboco.sandbox.major";
    /** Present (value 1) on warm-pool containers not yet claimed by an agent. */
    public static final String POOL = "roboco.sandbox.pool";
    /**
     * On a seeded warm-pool container: whose seed it holds, {@code <project>:<digest>} (the project id and the first 12
     * hex digits of the seed's SHA-256; never the seed itself).
     */
    public static final String POOL_SEED = "roboco.sandbox.pool.seed";

    private SandboxLabels() {}

    public static Map<String, String> forService(
            String instance, String agent, String project, String service, long createdEpochSeconds) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(SANDBOX, "1");
        labels.put(AGENT, agent);
        labels.put(SERVICE, service);
        labels.put(PROJECT, project);
        labels.put(INSTANCE, instance);
        labels.put(CREATED, Long.toString(createdEpochSeconds));
        return labels;
    }

    /** Filter for all of this instance's sandbox containers. */
    public static Map<String, String> ofInstance(String instance) {
        return Map.of(SANDBOX, "1", INSTANCE, instance);
    }

    /** Filter for one agent's containers of this instance. */
    public static Map<String, String> ofAgent(String instance, String agent) {
        return Map.of(SANDBOX, "1", INSTANCE, instance, AGENT, agent);
    }
}
