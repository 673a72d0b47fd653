package io.roboco.sandbox.plugin;

import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SettingsStore;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The example of docs/embedding.md, compiled here: {@code EmbeddingDocTest} fails when the doc's code block
 * differs from the region between the {@code doc:} markers, and {@code EmbeddingExampleIT} runs it against
 * the Docker daemon.
 */
final class EmbeddingExample {
    private EmbeddingExample() {
    }

    // doc:embedding-example:begin
    /** One agent's engagement: opt a project in, give the agent a task, hand it a Postgres sandbox, release it. */
    static void runOneAgent(String instanceId, Map<String, String> images, Consumer<Map<String, String>> agent)
            throws InterruptedException {
        try (SandboxPlugin plugin = SandboxPlugin.builder()
                .instanceId(instanceId)     // on every container this orchestrator starts
                .images(images)             // optional: otherwise each engine's production image
                .featureFlag(true)          // optional: otherwise the value in the store, else off
                .build()) {                 // Docker from the environment, the default engines, an in-memory store
            SettingsStore store = plugin.store();
            store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("pg_trgm"))));
            store.saveAgent(new Agent("dev-1", "developer", "shop", "TASK-1"));

            SandboxDecision decision = plugin.requestSandbox("dev-1", List.of("postgres"), Map.of());
            if (!(decision instanceof SandboxDecision.Granted granted)) {
                throw new IllegalStateException("no sandbox for dev-1: " + decision);
            }
            agent.accept(granted.sandboxes().get(0).env());   // ROBOCO_TEST_DB_URL, _HOST, _PORT, _USER, ...

            plugin.releaseSandbox("dev-1", "i_am_done");      // the engagement ended
        }                                                    // closing releases whatever is still live
    }
    // doc:embedding-example:end
}
