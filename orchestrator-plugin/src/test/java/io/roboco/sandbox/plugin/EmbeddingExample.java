package io.roboco.sandbox.plugin;

import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.SettingsStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * The example of docs/embedding.md, compiled here: {@code EmbeddingDocTest} fails when the doc's code block
 * differs from the region between the {@code doc:} markers, and {@code EmbeddingExampleIT} runs {@link #main} as a
 * child JVM against the Docker daemon and waits for that JVM to exit.
 */
final class EmbeddingExample {
    private EmbeddingExample() {}

    // doc:embedding-example:begin
    /**
     * One agent's engagement across a restart of the embedder: opt a project in, give the agent a task, hand it a
     * Postgres sandbox; close (re-adoption keeps it); build again on the same store and key, and the agent is answered
     * the same sandbox with the same credentials; release it.
     */
    static void runOneAgent(
            String instanceId,
            Map<String, String> images,
            Path templates,
            Path key,
            BiConsumer<SandboxDecision.Granted, Map<String, String>> agent)
            throws InterruptedException {
        SettingsStore store = new InMemorySettingsStore(); // optional: a JDBC store keeps it across processes
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("pg_trgm"))));
        store.saveAgent(new Agent("dev-1", "developer", "shop", "TASK-1"));
        for (int run = 1; run <= 2; run++) {
            try (SandboxPlugin plugin = SandboxPlugin.builder()
                    .instanceId(instanceId) // on every container this orchestrator starts
                    .store(store) // optional: otherwise a new in-memory store
                    .images(images) // optional: otherwise each engine's production image
                    .featureFlag(true) // optional: otherwise the value in the store, else off
                    .warmPool(new PoolSizes(Map.of("postgres", 1))) // optional: ready containers per engine (none)
                    .lifetimes(
                            Duration.ofHours(1),
                            Duration.ofHours(8)) // optional: TTL and the most a sandbox lives (4 h, 24 h)
                    .maxSandboxesPerOwner(2) // optional: live sandboxes per owner (3)
                    .templateDirectory(templates) // optional: where saved templates are kept (none)
                    .readoption(key) // optional: closing keeps live sandboxes for the next build (off)
                    .build()) { // Docker from the environment, the default engines
                SandboxDecision decision = plugin.requestSandbox("dev-1", List.of("postgres"), Map.of());
                if (!(decision instanceof SandboxDecision.Granted granted)) {
                    throw new IllegalStateException("no sandbox for dev-1: " + decision);
                }
                agent.accept(granted, granted.sandboxes().get(0).env()); // ROBOCO_TEST_DB_URL, _HOST, _PORT, ...
                if (run == 2) {
                    plugin.releaseSandbox("dev-1", "i_am_done"); // the engagement ended
                }
            } // closing keeps what is live (re-adoption is on), removes the idle pool, ends every thread
        }
    }
    // doc:embedding-example:end

    /**
     * The embedder's JVM: {@code <instance-id> <templates-dir> <key-file> <engine>=<image>...}. Prints what the agent saw
     * each run (never a password; whether the second run's credentials are the first's) and, after the plugin closed,
     * the non-daemon threads still alive; then returns from main, so the JVM exits only if closing ended every thread
     * the plugin started.
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> images = new TreeMap<>();
        for (int i = 3; i < args.length; i++) {
            images.put(args[i].substring(0, args[i].indexOf('=')), args[i].substring(args[i].indexOf('=') + 1));
        }
        List<Map<String, String>> answered = new ArrayList<>();
        runOneAgent(args[0], images, Path.of(args[1]), Path.of(args[2]), (granted, env) -> {
            System.out.println("path " + granted.path());
            System.out.println("expires-in-minutes "
                    + Duration.between(Instant.now(), granted.expires()).toMinutes());
            System.out.println("answered " + query(env));
            answered.add(env);
        });
        System.out.println("readopted-same-credentials "
                + (answered.size() == 2 && answered.get(0).equals(answered.get(1))));
        System.out.println("threads-after-close "
                + Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.isAlive() && !t.isDaemon() && t != Thread.currentThread())
                        .map(Thread::getName)
                        .sorted()
                        .collect(Collectors.joining(",")));
    }

    private static String query(Map<String, String> env) {
        String url = "jdbc:postgresql://" + env.get("ROBOCO_TEST_DB_HOST") + ":" + env.get("ROBOCO_TEST_DB_PORT") + "/"
                + env.get("ROBOCO_TEST_DB_NAME") + "?connectTimeout=10&socketTimeout=30";
        try (Connection c = DriverManager.getConnection(
                        url, env.get("ROBOCO_TEST_DB_USER"), env.get("ROBOCO_TEST_DB_PASSWORD"));
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT current_user || ' ' || (similarity('sandbox', 'sandboxes') > 0.5)")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("the granted env did not open its database: " + e.getMessage(), e);
        }
    }
}
